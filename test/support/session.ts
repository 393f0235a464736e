import {resolveConfig, type Config} from '../../source/agent/config/config.js';
import {parseFlags} from '../../source/agent/config/flags.js';
import type {AgentSession} from '../../source/agent/session/agent-session.js';
import {openSession, type OpenSessionOptions} from '../../source/agent/session/open.js';
import type {Sandbox} from './sandbox.js';

export {createSandbox, type Sandbox} from './sandbox.js';

/** flags -> config -> session, as cli.tsx does it; argv is what a person would type. */
export async function openTestSession(
  sandbox: Sandbox,
  argv: readonly string[],
  options: Partial<OpenSessionOptions> = {},
): Promise<{config: Config; session: AgentSession}> {
  const flags = parseFlags(['--model', 'nib-test-model', '--cwd', sandbox.workspace, ...argv]);
  if (!flags.ok) throw new Error(flags.error);
  const config = await resolveConfig({flags: flags.value, env: sandbox.env, cwd: sandbox.workspace});
  if (!config.ok) throw new Error(config.error);
  const session = await openSession(config.value, sandbox.env, {canAsk: true, ...options});
  if (!session.ok) throw new Error(session.error);
  return {config: config.value, session: session.value};
}
