import {spawn} from 'node:child_process';
import type {GuardSettings} from './settings.js';
import type {HookEvent} from './schema.js';
import {firstLine} from '../../core/text.js';

/** Claude Code's default: a hook that has not finished in a minute is killed. */
const DEFAULT_TIMEOUT_S = 60;

/**
 * How long stderr is still read after the hook exits: a child it left behind (`setsid x &`) can
 * hold the pipe open for as long as it lives, and nib must not wait for that.
 */
const DRAIN_MS = 200;

export type HookInput = {
  session_id: string;
  transcript_path: string;
  cwd: string;
  hook_event_name: HookEvent;
  tool_name?: string;
  tool_input?: unknown;
  tool_response?: unknown;
  prompt?: string;
  source?: string;
  stop_hook_active?: boolean;
};

export type HookOutcome = {
  /** Exit code 2 from any hook: for PreToolUse the call is not run, for UserPromptSubmit the prompt is not sent. */
  blocked: string | null;
  /** One line per hook that failed otherwise (another exit code, a timeout, a failed start). */
  warnings: string[];
};

/**
 * Runs the hooks configured for an event (those whose matcher matches the tool name, when there
 * is one), one after another, with the event as JSON on stdin. Hooks are the person's own
 * scripts and run unsandboxed, in the workspace, with the environment nib has minus `hiddenEnv`
 * (the provider key), plus CLAUDE_PROJECT_DIR so scripts written for Claude Code find the project.
 */
export async function runHooks(
  hooks: GuardSettings['hooks'],
  input: HookInput,
  options: {env?: NodeJS.ProcessEnv; hiddenEnv?: readonly string[]} = {},
): Promise<HookOutcome> {
  const outcome: HookOutcome = {blocked: null, warnings: []};
  const env: NodeJS.ProcessEnv = {...(options.env ?? process.env), CLAUDE_PROJECT_DIR: input.cwd, NIB_PROJECT_DIR: input.cwd};
  for (const name of options.hiddenEnv ?? []) delete env[name];
  for (const {event, entry} of hooks) {
    if (event !== input.hook_event_name) continue;
    if (!matches(entry.matcher, input.tool_name)) continue;
    for (const hook of entry.hooks) {
      const timeoutMs = (hook.timeout ?? DEFAULT_TIMEOUT_S) * 1000;
      const run = await runOne(hook.command, input, timeoutMs, env);
      const name = `${input.hook_event_name} hook \`${hook.command}\``;
      if (run.timedOut) outcome.warnings.push(`${name} was killed after ${hook.timeout ?? DEFAULT_TIMEOUT_S} s`);
      else if (run.spawnError) outcome.warnings.push(`${name} could not start: ${run.spawnError}`);
      else if (run.code === 2) {
        outcome.blocked = run.stderr.trim() || `blocked by ${name}`;
        return outcome;
      } else if (run.code !== 0) {
        outcome.warnings.push(`${name} exited ${run.code ?? run.signal}${run.stderr.trim() ? `: ${firstLine(run.stderr)}` : ''}`);
      }
    }
  }
  return outcome;
}

/** Claude Code's matcher: empty or `*` matches every tool; otherwise a regex on the tool name. */
function matches(matcher: string | undefined, tool: string | undefined): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*' || tool === undefined) return true;
  // Case-insensitive, so a script written for Claude Code's `Bash` or `Edit|Write` matches nib's tools.
  return new RegExp(`^(?:${matcher})$`, 'i').test(tool);
}

type HookRun = {code: number | null; signal: string | null; stderr: string; timedOut: boolean; spawnError: string | null};

function runOne(command: string, input: HookInput, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<HookRun> {
  return new Promise(resolve => {
    const child = spawn('bash', ['-c', command], {
      cwd: input.cwd,
      env,
      stdio: ['pipe', 'ignore', 'pipe'],
      // Its own process group, so a timeout kills what the hook started too.
      detached: true,
    });
    let stderr = '';
    let timedOut = false;
    let drain: NodeJS.Timeout | undefined;
    let exited: {code: number | null; signal: string | null} | null = null;
    let stderrClosed = false;
    let settled = false;
    const finish = (run: HookRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drain);
      // Whatever still holds the pipes (a child that outlived the hook) no longer keeps nib waiting.
      child.stdin.destroy();
      child.stderr.destroy();
      resolve(run);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    child.stderr.on('data', chunk => (stderr = (stderr + chunk).slice(-16_384)));
    // A hook that ignores its stdin closes the pipe early; that is not an error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(input));
    child.once('error', error => finish({code: null, signal: null, stderr, timedOut: false, spawnError: error.message}));
    child.once('exit', (code, signal) => {
      exited = {code, signal};
      const done = () => finish({code, signal, stderr, timedOut, spawnError: null});
      if (stderrClosed) done();
      else drain = setTimeout(done, DRAIN_MS);
    });
    // The usual end: the hook and everything it started are done with stderr.
    child.stderr.once('close', () => {
      stderrClosed = true;
      if (exited) finish({...exited, stderr, timedOut, spawnError: null});
    });
  });
}

