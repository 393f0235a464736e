import type {Config} from '../config/config.js';
import {createRedactor} from '../config/redact.js';
import {SECRET_ENV_NAMES} from '../../core/providers.js';
import type {Result} from '../../core/result.js';
import {Guard} from './guard.js';
import type {HookInput} from './hooks.js';
import {startSandbox} from './sandbox.js';
import {loadGuardSettings} from './settings.js';
import {trustDecision} from './trust.js';

/** Who the hooks are told they run for: the session id and its log, read when a hook runs. */
export type HookBase = Pick<HookInput, 'session_id' | 'transcript_path'>;

export type OpenedGuard = {
  guard: Guard;
  /** One line each for the person: no sandbox here, project rules waiting for trust. */
  notices: string[];
  /** The project has allow rules or hooks that do not count until the person trusts it. */
  awaitingTrust: boolean;
};

/** Env vars a command or hook never sees: the provider key under any name nib knows it by. */
export function secretEnvNames(env: NodeJS.ProcessEnv, apiKey: string | undefined): string[] {
  const names = [...SECRET_ENV_NAMES];
  if (apiKey) for (const [name, value] of Object.entries(env)) if (value === apiKey) names.push(name);
  return [...new Set(names)];
}

/**
 * The session's guard: rules and hooks from the config file and the project (the project's
 * allow rules and hooks only when trusted: --trust-project, or trusted earlier in the TUI),
 * and the sandbox, probed once.
 */
export async function openGuard(
  config: Config,
  root: string,
  env: NodeJS.ProcessEnv,
  hookBase: () => HookBase,
): Promise<Result<OpenedGuard>> {
  const trusted = config.trustProject || (await trustDecision(env, root)) === true;
  const settings = await loadGuardSettings({root, user: {permissions: config.permissions, hooks: config.hooks}, trusted});
  if (!settings.ok) return settings;
  const sandbox = await startSandbox(config.sandbox, root, env);
  if (!sandbox.ok) return sandbox;
  const notices: string[] = [];
  if (sandbox.notice) notices.push(sandbox.notice);
  const awaitingTrust = settings.value.projectAsksTrust && !trusted;
  if (awaitingTrust) {
    notices.push("This project's .nib/ settings have allow rules or hooks; they do not count until you trust the workspace (--trust-project, or answer the question in the TUI; asked again whenever they change). Its deny rules apply.");
  }
  const guard = new Guard({
    root,
    settings: settings.value,
    sandbox: sandbox.sandbox,
    env,
    hookBase,
    hiddenEnv: secretEnvNames(env, config.apiKey),
    redact: createRedactor(env, [{name: 'apiKey', value: config.apiKey}]),
  });
  return {ok: true, value: {guard, notices, awaitingTrust}};
}

/**
 * What to ask the person before the TUI starts: the project's allow rules and hook commands,
 * when the workspace has some and the person has not answered for it yet. null: nothing to ask.
 */
export async function trustQuestion(config: Config, root: string, env: NodeJS.ProcessEnv): Promise<string[] | null> {
  if (config.trustProject || (await trustDecision(env, root)) !== undefined) return null;
  const settings = await loadGuardSettings({root, user: {}, trusted: false});
  return settings.ok && settings.value.projectAsksTrust ? settings.value.waitingForTrust : null;
}
