import {mkdir, mkdtemp, realpath, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {resolveConfig, type Config} from '../../source/agent/config/config.js';
import {parseFlags} from '../../source/agent/config/flags.js';
import type {AgentSession} from '../../source/agent/session/agent-session.js';
import {openSession, type OpenSessionOptions} from '../../source/agent/session/open.js';

/**
 * A scratch home (config, data and state dirs) with a workspace inside it: every test that opens
 * a session writes its log and snapshots here, never in the person's own home.
 */
export type Sandbox = {base: string; root: string; env: NodeJS.ProcessEnv; remove: () => Promise<void>};

export async function createSandbox(prefix = 'nib-test-', extraEnv: NodeJS.ProcessEnv = {}): Promise<Sandbox> {
  const base = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  const root = join(base, 'work');
  await mkdir(root);
  const env = {XDG_CONFIG_HOME: join(base, 'config'), XDG_DATA_HOME: join(base, 'data'), XDG_STATE_HOME: join(base, 'state'), HOME: base, ...extraEnv};
  return {base, root, env, remove: () => rm(base, {recursive: true, force: true, maxRetries: 5})};
}

/** flags -> config -> session, as cli.tsx does it; argv is what a person would type. */
export async function openTestSession(
  sandbox: Sandbox,
  argv: readonly string[],
  options: Partial<OpenSessionOptions> = {},
): Promise<{config: Config; session: AgentSession}> {
  const flags = parseFlags(['--model', 'nib-test-model', '--cwd', sandbox.root, ...argv]);
  if (!flags.ok) throw new Error(flags.error);
  const config = await resolveConfig({flags: flags.value, env: sandbox.env, cwd: sandbox.root});
  if (!config.ok) throw new Error(config.error);
  const session = await openSession(config.value, sandbox.env, {canAsk: true, ...options});
  if (!session.ok) throw new Error(session.error);
  return {config: config.value, session: session.value};
}
