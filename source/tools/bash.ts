import {z} from 'zod';
import {within} from '../core/within.js';
import {LIMITS} from '../core/limits.js';
import {SECRET_ENV_NAMES} from '../core/providers.js';
import {formatBytes} from './fs/text.js';
import {createOutputForwarder, OutputKeeper} from './output.js';
import {
  canSweep,
  describeProcesses,
  endMarked,
  findMarked,
  MARKER_VARIABLE,
  newRunMarker,
  signalGroup,
  waitForGroupExit,
  type SweepReport,
} from './process-sweep.js';
import {defineTool, type ToolContext, type ToolResult} from '../core/tool.js';

const schema = z.object({
  command: z.string().min(1).describe('The shell command (bash). Runs in the workspace root.'),
  timeout: z
    .number()
    .positive()
    .max(LIMITS.bashMaxTimeoutMs / 1000)
    .optional()
    .describe(`Seconds before the command is killed (default ${LIMITS.bashDefaultTimeoutMs / 1000}, max ${LIMITS.bashMaxTimeoutMs / 1000}).`),
  description: z.string().optional().describe('A few words saying what the command does, shown to the person.'),
});

export type BashArgs = z.infer<typeof schema>;

export type BashToolOptions = {
  /** Grace between SIGTERM and SIGKILL for the process group. */
  killGraceMs?: number;
  /**
   * How long to keep reading after the shell exits: a background child (`server &`) may hold the
   * output pipe open forever, and nib must not wait for it.
   */
  drainMs?: number;
  /** Environment variables the command must not see (the API key would otherwise be one `env` away). */
  hiddenEnv?: readonly string[];
  /** Where the full output of a truncated run is written. */
  spillDir?: string;
};

const DEFAULT_HIDDEN_ENV = SECRET_ENV_NAMES;

/** Non-interactive by construction: nothing a command starts should wait for a person. */
const ADDED_ENV = {
  CI: '1',
  GIT_TERMINAL_PROMPT: '0',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  DEBIAN_FRONTEND: 'noninteractive',
};

/**
 * The outer shell only redirects stderr onto stdout and execs the real one: both streams share
 * one pipe, so their lines arrive in the order they were written (two pipes cannot promise that),
 * while the command string is still bash's `-c` script as typed, error line numbers included.
 */
const WRAPPER = 'exec bash -c "$1" 2>&1';

export function createBashTool(options: BashToolOptions = {}) {
  const settings = {
    killGraceMs: options.killGraceMs ?? LIMITS.bashKillGraceMs,
    drainMs: options.drainMs ?? LIMITS.bashDrainMs,
    hiddenEnv: options.hiddenEnv ?? DEFAULT_HIDDEN_ENV,
    spillDir: options.spillDir,
  };
  return defineTool({
    name: 'bash',
    kind: 'exec',
    confinable: true,
    description: [
      'Run a bash command in the workspace root and get its combined stdout and stderr, exit code and duration.',
      'stdin is closed, so nothing interactive works: pass flags like --yes, avoid editors and pagers.',
      `Timeout ${LIMITS.bashDefaultTimeoutMs / 1000} s by default (max ${LIMITS.bashMaxTimeoutMs / 1000}), after which every process it started is ended (background and setsid ones too).`,
      `Long output is cut to the first ${formatBytes(LIMITS.bashHeadBytes)} and last ${formatBytes(LIMITS.bashTailBytes)}, with the output saved to a temp file (its first ${formatBytes(LIMITS.bashSpillHeadBytes)} and last ${formatBytes(LIMITS.bashSpillTailBytes)}) that is deleted when nib exits.`,
      'Prefer read, grep and list for looking at files.',
    ].join(' '),
    schema,
    keyArg: args => args.command,
    isOutside: async () => false,
    preview: async (args, ctx) => ({
      title: `bash ${firstLine(args.command)}`,
      outside: false,
      command: {command: args.command, cwd: ctx.root},
      editable: args.command,
    }),
    run: (args, ctx, signal) => runCommand(args.command, args.timeout, ctx, signal, settings),
    runEdited: (args, text, ctx, signal) => runCommand(text, args.timeout, ctx, signal, settings),
  });
}

type Settings = {killGraceMs: number; drainMs: number; hiddenEnv: readonly string[]; spillDir: string | undefined};

async function runCommand(
  command: string,
  timeoutSeconds: number | undefined,
  ctx: ToolContext,
  signal: AbortSignal,
  settings: Settings,
): Promise<ToolResult> {
  if (signal.aborted) {
    return {content: 'Interrupted before the command started; it did not run.', isError: true, code: 'aborted', detail: {summary: 'not run'}};
  }
  const timeoutMs = Math.min((timeoutSeconds ?? LIMITS.bashDefaultTimeoutMs / 1000) * 1000, LIMITS.bashMaxTimeoutMs);
  const env: Record<string, string | undefined> = {...process.env, ...ADDED_ENV};
  for (const name of [...settings.hiddenEnv, ...(ctx.hiddenEnv ?? [])]) delete env[name];
  // Every process the command starts inherits it, setsid and double forks included: the sweep finds them by it.
  const marker = newRunMarker();
  env[MARKER_VARIABLE] = marker;
  const isOurs = (value: string) => value === marker;
  const started = performance.now();

  // Loaded on the first command: execa and its dependencies are ~150 KB that print mode's first
  // request does not need (bench/startup.mjs).
  const {execa} = await import('execa');
  const [file, ...argv] = (ctx.wrap ?? (plain => [...plain]))(['bash', '-c', WRAPPER, 'nib', command]);
  const subprocess = execa(file!, argv, {
    cwd: ctx.root,
    env,
    extendEnv: false,
    stdin: 'ignore',
    all: true,
    buffer: false,
    reject: false,
    encoding: 'buffer',
    // Its own process group: a timeout kills the shell and everything it started, `&` included.
    detached: true,
  });
  const child = subprocess.nodeChildProcess;
  const keeper = new OutputKeeper(LIMITS.bashHeadBytes, LIMITS.bashTailBytes, settings.spillDir, ctx.redact);
  const forward = createOutputForwarder(ctx.onOutput);

  let stopReason: 'timeout' | 'aborted' | null = null;
  let killTimer: NodeJS.Timeout | null = null;
  let sweep: Promise<SweepReport> | null = null;
  const killGroup = (reason: 'timeout' | 'aborted') => {
    if (stopReason) return;
    stopReason = reason;
    // The sweep first: its synchronous start lists the processes before any signal, so what it
    // reports as ended includes those the group signal would have taken without it seeing them.
    sweep = endMarked(isOurs, settings.killGraceMs);
    signalGroup(child.pid, 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), settings.killGraceMs);
  };
  const timeoutTimer = setTimeout(() => killGroup('timeout'), timeoutMs);
  const onAbort = () => killGroup('aborted');
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, {once: true});

  const output = subprocess.all;
  let lastDataAt = performance.now();
  output.on('data', (chunk: Buffer) => {
    lastDataAt = performance.now();
    forward.write(chunk);
    if (!keeper.push(chunk)) {
      output.pause();
      keeper.onDrain(() => output.resume());
    }
  });
  const outputEnded = new Promise<void>(resolve => {
    output.once('close', resolve);
    output.once('end', resolve);
    output.once('error', () => resolve());
  });

  const exit = await new Promise<{code: number | null; signal: NodeJS.Signals | null; spawnError: string | null}>(resolve => {
    child.once('exit', (code, exitSignal) => resolve({code, signal: exitSignal, spawnError: null}));
    child.once('error', error => resolve({code: null, signal: null, spawnError: error.message}));
  });
  // The shell is gone; its output is complete unless a background child still holds the pipe.
  const ended = await drain(output, outputEnded, () => lastDataAt, () => stopReason !== null, settings.drainMs);
  const heldOpen = !ended;
  output.destroy();
  subprocess.stdout?.destroy();
  subprocess.stderr?.destroy();
  await subprocess;

  clearTimeout(timeoutTimer);
  signal.removeEventListener('abort', onAbort);
  // On a timeout or abort, give the group its grace period, then make sure it is gone: a child
  // that traps SIGTERM must not outlive the call.
  let swept: SweepReport | null = null;
  if (stopReason && killTimer) {
    swept = await sweep;
    if (!canSweep) await waitForGroupExit(child.pid, settings.killGraceMs);
    clearTimeout(killTimer);
    signalGroup(child.pid, 'SIGKILL');
  }
  forward.flush();
  await keeper.close();

  const durationMs = performance.now() - started;
  const background = stopReason ? [] : findMarked(isOurs);
  return describeRun({exit, stopReason, timeoutMs, durationMs, heldOpen, keeper, ended: swept, background, wrapper: ctx.wrap ? file! : null});
}

/**
 * After the shell exits, reads on until the output ends, or until it has been quiet for `quietMs`
 * while flowing (a background child holds the pipe but is not writing), or until a child that
 * writes forever has had 10 quiet periods' worth. Time spent paused for the spill file does not
 * count: the bytes still in the pipe are the tail the model needs. Once the call is timed out or
 * aborted it does: a pause that never ends must not outlive the call.
 */
async function drain(
  output: NodeJS.ReadableStream & {readableEnded: boolean},
  ended: Promise<void>,
  lastDataAt: () => number,
  stopped: () => boolean,
  quietMs: number,
): Promise<boolean> {
  let flowingMs = 0;
  while (!output.readableEnded) {
    const started = performance.now();
    await within(ended, quietMs / 4);
    if (output.readableEnded) break;
    if (output.isPaused() && !stopped()) continue;
    flowingMs += performance.now() - started;
    if (performance.now() - lastDataAt() >= quietMs || flowingMs >= quietMs * 10) return false;
  }
  return true;
}

function describeRun(run: {
  exit: {code: number | null; signal: NodeJS.Signals | null; spawnError: string | null};
  stopReason: 'timeout' | 'aborted' | null;
  timeoutMs: number;
  durationMs: number;
  heldOpen: boolean;
  keeper: OutputKeeper;
  ended: SweepReport | null;
  background: readonly {pid: number; command: string}[];
  /** The program ctx.wrap ran the command under (the sandbox's bwrap), if any. */
  wrapper: string | null;
}): ToolResult {
  const {exit, stopReason, durationMs, keeper} = run;
  const seconds = formatSeconds(durationMs);
  const text = keeper.total === 0 ? '(no output)' : keeper.render().replace(/\n$/, '');
  let status: string;
  let summary: string;
  if (exit.spawnError) {
    status = `The command could not be started: ${exit.spawnError}`;
    summary = 'failed to start';
  } else if (stopReason === 'timeout') {
    status = `Timed out after ${formatSeconds(run.timeoutMs)}: ${whatEnded(run.ended, run.wrapper)} Use a longer timeout (max ${LIMITS.bashMaxTimeoutMs / 1000} s) or run it in the background with output to a file.`;
    summary = `timeout · ${seconds}`;
  } else if (stopReason === 'aborted') {
    status = `Interrupted by the person: ${whatEnded(run.ended, run.wrapper)}`;
    summary = `interrupted · ${seconds}`;
  } else if (exit.signal) {
    status = `Killed by ${exit.signal} after ${seconds}.`;
    summary = `${exit.signal} · ${seconds}`;
  } else {
    status = `Exit code ${exit.code} after ${seconds}.`;
    summary = `exit ${exit.code} · ${seconds}`;
  }
  if (run.heldOpen && !stopReason) {
    status += ' A background process is still running and holding the output open; its further output is not captured.';
  }
  if (run.background.length > 0) {
    status += ` Still running in the background: ${describeProcesses(run.background)}; nib ends them when it exits.`;
  }
  return {
    content: `${text}\n\n[${status}]`,
    isError: stopReason !== null || exit.code !== 0,
    detail: {
      summary,
      exitCode: exit.code,
      signal: stopReason === 'timeout' ? 'timeout' : (exit.signal ?? null),
      durationMs: Math.round(durationMs),
    },
  };
}

/** What the sweep actually ended, for the model: a claim it can check, not a promise. */
function whatEnded(report: SweepReport | null, wrapper: string | null): string {
  if (!canSweep || !report) return "the command's process group was killed (processes that left the group, e.g. with setsid, may still run).";
  // The wrapper's own processes (the sandbox's two bwraps) are not the command's: named, not listed.
  const own = report.ended.filter(target => wrapper === null || target.command.split(' ', 1)[0] !== wrapper);
  const sandbox = own.length < report.ended.length ? ' (and the sandbox around them)' : '';
  const ended = own.length > 0 ? `ended ${describeProcesses(own)}${sandbox}.` : 'no process of the command was left to end.';
  const left = report.survivors.length > 0 ? ` Could not end ${describeProcesses(report.survivors)}.` : '';
  return `${ended}${left}`;
}

function firstLine(command: string): string {
  const line = command.split('\n')[0] ?? '';
  return line.length > 80 || command.includes('\n') ? `${line.slice(0, 80)}…` : line;
}

function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

export const bashTool = createBashTool();
