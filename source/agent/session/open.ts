import {realpath, stat} from 'node:fs/promises';
import type {Result} from '../../core/result.js';
import {windowFor, type Config} from '../config/config.js';
import {createRedactor} from '../config/redact.js';
import {createProvider} from '../provider/client.js';
import {buildSystemPrompt} from '../system-prompt.js';
import {createBuiltinRegistry, createReadLedger, withExtraTools} from '../../tools/builtin.js';
import {openGuard, secretEnvNames, type HookBase} from '../guard/open.js';
import {AgentSession} from './agent-session.js';
import {openMcp} from './mcp.js';
import {SessionStore, type SessionChoice} from './store.js';
import {watchInstructions} from './instructions.js';
import type {Message} from '../../core/messages.js';
import {modelFromServer} from './server-model.js';
import {PROBE_WAIT_MS, probeTarget} from './window.js';

export type OpenSessionOptions = {
  /** False in print mode: nobody is there to answer an approval. */
  canAsk: boolean;
  /** The date the system prompt states. */
  now?: () => Date;
  /**
   * Print mode: the prompt goes out as soon as the session is open. The server probe starts with
   * the session, and a turn's check that the prompt fits waits for the server's window, briefly.
   * The TUI probes after its first frame and never waits.
   */
  sendsAtOnce?: boolean;
};

/**
 * The one way to a running session, for print mode and the TUI alike: the workspace, the session
 * log (new, --continue, --resume ID), project instructions, the provider, the system prompt and
 * the tools. A config that cannot start a session (no model, no key) is an error sentence.
 */
export async function openSession(given: Config, env: NodeJS.ProcessEnv, options: OpenSessionOptions): Promise<Result<AgentSession>> {
  const chosen = await modelFromServer(given, options.canAsk);
  if (!chosen.ok) return chosen;
  const {config, notice, chooseModel, models, problem} = chosen.value;
  if (problem) return {ok: false, error: problem};
  const root = await resolveWorkspace(config.cwd);
  if (!root.ok) return root;
  // With --sandbox on, the sandbox probe (a bwrap run) overlaps with opening the log instead of adding to startup.
  const [store, opened] = await Promise.all([SessionStore.open({
    cwd: root.value,
    model: config.model ?? '',
    apiKey: config.apiKey,
    choice: sessionChoice(config),
    retentionDays: config.sessionRetentionDays,
    windowFor: model => windowFor(config.contextWindows, model),
    autoCompact: config.autoCompact,
    env,
  }), openGuard(config, root.value, env, (): HookBase => ({session_id: store.log.id, transcript_path: store.log.path}))]);
  if (!opened.ok) {
    await store.close();
    return opened;
  }
  const {guard} = opened.value;
  const tools = createBuiltinRegistry();
  const systemWith = (instructions: string) =>
    buildSystemPrompt({
      cwd: root.value,
      platform: process.platform,
      date: options.now?.() ?? new Date(),
      // All tools: plan mode's narrower set is what each request offers, not what the prompt says.
      tools: tools.definitions({mode: 'ask'}).map(d => d.function.name),
      ...(instructions ? {instructions} : {}),
    });
  const history: Message[] = [{type: 'system', content: systemWith(store.instructions.text)}, ...store.history];
  const refreshInstructions = watchInstructions({
    cwd: root.value,
    env,
    current: store.instructions.text,
    apply: text => {
      if (history[0]?.type === 'system') history[0] = {type: 'system', content: systemWith(text)};
      store.window.tracker.systemChanged();
    },
  });
  // Configured servers are read now and started by the caller: print mode waits for them, the TUI
  // starts them after its first frame. Their tools join the registry as they become ready.
  const mcp = await openMcp(config, root.value, env);
  const session = new AgentSession({
    store,
    history,
    refreshInstructions,
    tools: mcp ? withExtraTools(tools, () => mcp.hub.tools()) : tools,
    ...(mcp ? {mcp} : {}),
    context: {
      root: root.value,
      ledger: createReadLedger(),
      redact: createRedactor(env, [{name: 'apiKey', value: config.apiKey}]),
      hiddenEnv: secretEnvNames(env, config.apiKey),
      readDenied: paths => guard.readDenied(paths),
    },
    guard,
    notices: opened.value.notices,
    mode: config.approvalMode,
    model: config.model!,
    connect: model =>
      createProvider({
        baseURL: config.baseURL,
        // Loopback servers take any key.
        apiKey: config.apiKey ?? 'no-key',
        keyEnv: config.keyEnv,
        model,
        idleTimeoutMs: config.idleTimeoutMs,
        account: {organization: env['OPENAI_ORG_ID'], project: env['OPENAI_PROJECT_ID']},
      }),
    canAsk: options.canAsk,
    maxRounds: config.maxRounds,
    chooseModel,
  });
  store.window.setTools(tools.definitions({mode: config.approvalMode}));
  // The picker shown at start (several models served) needs the list before the probe answers.
  if (models) store.window.models = models;
  // In the background: print mode asks at once (its first request waits only briefly); the TUI
  // asks in warmUp, after its first frame, which the requests would otherwise hold up.
  store.window.aim(probeTarget(config, session.model));
  if (options.sendsAtOnce) {
    store.window.start(session.history);
    store.window.waitBeforeChecks(PROBE_WAIT_MS);
  }
  if (notice) store.window.note(notice);
  await session.started(config.continue || typeof config.resume === 'string' ? 'resume' : 'startup');
  return {ok: true, value: session};
}

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

/** What --continue / --resume ID ask for; a bare --resume is the picker's business. */
export function sessionChoice(flags: {continue: boolean; resume: string | true | undefined}): SessionChoice {
  if (typeof flags.resume === 'string') return {kind: 'id', id: flags.resume};
  if (flags.continue) return {kind: 'latest'};
  return {kind: 'new'};
}
