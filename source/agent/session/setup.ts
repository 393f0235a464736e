import {realpath, stat} from 'node:fs/promises';
import type {Config} from '../config/config.js';
import type {Result} from '../../core/result.js';
import {readinessProblem} from '../config/config.js';
import {createRedactor} from '../config/redact.js';
import type {LoopCompaction, LoopTools} from '../loop.js';
import type {Message} from '../../core/messages.js';
import {createProvider} from '../provider/client.js';
import type {ChatProvider} from '../../core/chat.js';
import {buildSystemPrompt} from '../system-prompt.js';
import {createToolSession, defaultRegistry} from '../../tools/index.js';
import type {ToolContext} from '../../core/tool.js';
import type {Guard} from '../guard/guard.js';
import {openGuard, secretEnvNames} from '../guard/open.js';

/** Everything `runAgent` needs that lives as long as a session: shared by print mode and the TUI. */
export type AgentSetup = {
  provider: ChatProvider;
  tools: LoopTools;
  context: ToolContext;
  /** Starts with the system message; the loop appends to it. */
  history: Message[];
  alwaysAllowed: Set<string>;
  /** Permission rules, hooks and the sandbox. */
  guard: Guard;
  /** Lines for the person from opening the guard (no sandbox here, project rules awaiting trust). */
  notices: string[];
  /** The project has allow rules or hooks that wait for the person to trust the workspace. */
  awaitingTrust: boolean;
  /** Context management (#5): set by the session wiring, passed to runAgent. */
  compaction?: LoopCompaction;
};

/** Resolves the workspace to its real path; a missing or non-directory --cwd is a clear error. */
export async function resolveWorkspace(cwd: string): Promise<Result<string>> {
  try {
    const root = await realpath(cwd);
    if (!(await stat(root)).isDirectory()) return {ok: false, error: `${cwd} is not a directory`};
    return {ok: true, value: root};
  } catch {
    return {ok: false, error: `the workspace ${cwd} does not exist`};
  }
}

export async function setupAgent(
  config: Config,
  options: {
    /** Project instructions for the system prompt (AGENTS.md, #5). */
    instructions?: string;
    now?: () => Date;
    /** Whose `*_KEY`, `*_TOKEN`, `*_SECRET` values tool output is masked for (process.env). */
    env?: NodeJS.ProcessEnv;
    /** The session id and log path hooks are told. */
    hookBase?: () => {session_id: string; transcript_path: string};
  } = {},
): Promise<Result<AgentSetup>> {
  const problem = readinessProblem(config);
  if (problem) return {ok: false, error: problem};
  const root = await resolveWorkspace(config.cwd);
  if (!root.ok) return root;

  const provider = createProvider({
    baseURL: config.baseURL,
    // Loopback servers take any key; the SDK insists on one.
    apiKey: config.apiKey ?? 'no-key',
    model: config.model!,
    idleTimeoutMs: config.idleTimeoutMs,
  });
  const env = options.env ?? process.env;
  const opened = await openGuard(config, root.value, env, options.hookBase ?? (() => ({session_id: '', transcript_path: ''})));
  if (!opened.ok) return opened;
  const {guard} = opened.value;
  const system = buildSystemPrompt({
    cwd: root.value,
    platform: process.platform,
    date: options.now?.() ?? new Date(),
    // All tools: plan mode's narrower set is what each request offers, not what the prompt says.
    tools: defaultRegistry.definitions({mode: 'ask'}).map(d => d.function.name),
    ...(options.instructions ? {instructions: options.instructions} : {}),
  });
  return {
    ok: true,
    value: {
      provider,
      tools: defaultRegistry,
      context: {
        root: root.value,
        session: createToolSession(),
        redact: createRedactor(env, [{name: 'apiKey', value: config.apiKey}]),
        hiddenEnv: secretEnvNames(env, config.apiKey),
        ...(guard.sandbox ? {wrap: guard.sandbox.wrap} : {}),
      },
      history: [{type: 'system', content: system}],
      alwaysAllowed: new Set(),
      guard,
      notices: opened.value.notices,
      awaitingTrust: opened.value.awaitingTrust,
    },
  };
}
