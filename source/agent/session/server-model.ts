import {isLoopback} from '../../core/hosts.js';
import {readinessProblem, type Config} from '../config/config.js';
import {statusLine} from '../provider/errors.js';
import {probeServer} from '../provider/server-info.js';
import type {Result} from '../../core/result.js';

/**
 * No model configured: a server that serves exactly one (llama.cpp, a vLLM or LM Studio with one
 * model loaded) names it in its model list, and nib uses it. With several, the person chooses:
 * the TUI offers them in the picker, print mode lists them in its error.
 */
export type ServerModels =
  | {kind: 'one'; model: string; notice: string}
  | {kind: 'several'; models: string[]}
  /** `unlisted`: asked, the server gave no model list (down, slow, or not a server that has one); `keyRefused`: it said 401 or 403. */
  | {kind: 'none'; unlisted: boolean; keyRefused?: number};

/** How long nib waits for the model list before saying no model is configured. */
const LIST_TIMEOUT_MS = 3_000;

export async function modelsFromServer(config: Config, fetchImpl?: typeof fetch): Promise<ServerModels> {
  // A remote server without a key would only answer 401; readinessProblem says what to do.
  if (!config.apiKey && !isLoopback(config.baseURL)) return {kind: 'none', unlisted: false};
  const info = await probeServer({
    baseURL: config.baseURL,
    ...(config.apiKey ? {apiKey: config.apiKey} : {}),
    timeoutMs: LIST_TIMEOUT_MS,
    ...(fetchImpl ? {fetch: fetchImpl} : {}),
  });
  const models = info.models ?? [];
  if (models.length === 1) return {kind: 'one', model: models[0]!, notice: `No model configured; using the server's only model, ${models[0]}.`};
  if (models.length > 1) return {kind: 'several', models};
  return {kind: 'none', unlisted: info.models === null, ...(info.keyRefused ? {keyRefused: info.keyRefused} : {})};
}

/** Print mode's error for a server with several models. */
export function chooseModelError(config: Config, models: readonly string[]): string {
  const shown = models.slice(0, 20).join(', ');
  const more = models.length > 20 ? `, and ${models.length - 20} more` : '';
  return `no model configured, and ${config.baseURL} serves ${models.length}: ${shown}${more}. Pass --model NAME, set NIB_MODEL, or add "model" to ${config.configPath}`;
}

type Chosen = {config: Config; notice?: string; chooseModel: boolean; models?: string[]};

/**
 * No model configured: the server's only model, named in a notice. With several, print mode
 * (nobody to ask) stops with them listed; the TUI starts on the first and asks (`chooseModel`).
 * `problem`: what still keeps a request from being sent (readinessProblem), saying so when the
 * server gave no model list, so one that is down or slow is not mistaken for one that serves none.
 */
export async function modelFromServer(config: Config, canAsk: boolean): Promise<Result<Chosen & {problem?: string}>> {
  const chosen = await choose(config, canAsk);
  if (!chosen.ok) return chosen;
  const {unlisted, keyRefused, ...value} = chosen.value;
  const problem = readinessProblem(value.config);
  if (!problem) return {ok: true, value};
  // A wrong key is the thing to fix first: a model set now would only meet the same refusal.
  const why = !keyRefused
    ? ''
    : config.apiKey
      ? `${config.baseURL} refused the key when asked its models (${statusLine(keyRefused)}): check ${config.keyEnv}; then `
      : `${config.baseURL} wants a key to list its models (${statusLine(keyRefused)}): set ${config.keyEnv}; then `;
  const listed = unlisted && !keyRefused ? ` (asked, ${config.baseURL} gave no list of its models)` : '';
  return {ok: true, value: {...value, problem: `${why}${problem}${listed}`}};
}

async function choose(config: Config, canAsk: boolean): Promise<Result<Chosen & {unlisted?: boolean; keyRefused?: number}>> {
  if (config.model) return {ok: true, value: {config, chooseModel: false}};
  const found = await modelsFromServer(config);
  if (found.kind === 'one') return {ok: true, value: {config: {...config, model: found.model}, notice: found.notice, chooseModel: false}};
  if (found.kind === 'several') {
    if (!canAsk) return {ok: false, error: chooseModelError(config, found.models)};
    const notice = `No model configured, and the server serves ${found.models.length}: choose one (esc keeps ${found.models[0]}).`;
    // The list goes to the picker shown at start, before the window probe has answered.
    return {ok: true, value: {config: {...config, model: found.models[0]}, notice, chooseModel: true, models: found.models}};
  }
  return {ok: true, value: {config, chooseModel: false, unlisted: found.unlisted, ...(found.keyRefused ? {keyRefused: found.keyRefused} : {})}};
}
