/**
 * What the server says about itself: which kind of server it is, the models it serves, and the
 * context window the chosen model really runs with. Local servers load a model with a window set
 * at start (llama.cpp --ctx-size, vLLM --max-model-len, Ollama num_ctx, LM Studio's slider), often
 * far below what the model was trained for, and only the server knows it.
 *
 * Every question has a short deadline and any failure is "unknown", never an error: a server
 * that does not answer these routes still serves chat completions.
 */
import {isObject} from './wire.js';
import {knownWindow} from './known-windows.js';
import {PROVIDER_PRESETS} from '../../core/providers.js';
import {send, type SendInit} from './http.js';
import {onLocalNetwork} from '../../core/hosts.js';

export type ServerKind = 'llama.cpp' | 'vllm' | 'lmstudio' | 'ollama' | 'openrouter' | 'other';

export type ServerInfo = {
  kind: ServerKind;
  /** Model ids from GET /models; null when the server has no model list. */
  models: string[] | null;
  /** The window of the model asked about, in tokens; null when nothing said it. */
  window: number | null;
  /** Where `window` came from, for /context ("llama.cpp /props"). */
  source: string | null;
  /** Ollama and LM Studio: the model is not loaded yet, so `window` is what it is expected to be loaded with (asked again after an answer). */
  beforeLoad?: boolean;
  /** GET /models was refused as unauthorised (401 or 403): the key, not the list, is the problem. */
  keyRefused?: number;
};

export type ProbeOptions = {
  baseURL: string;
  apiKey?: string;
  /** The model whose window is wanted; undefined asks only for the list (and a lone model's window). */
  model?: string;
  /** Per request; the whole probe is a handful of requests, most in parallel. */
  timeoutMs?: number;
  /** How each request goes: node:http(s) (http.ts), unless a test passes its own (fetch fits). */
  request?: ProbeRequest;
  signal?: AbortSignal;
};

/** One request as the probe needs it: whether it succeeded (and its status), and its body. */
export type ProbeRequest = (url: string, init: SendInit) => Promise<{ok: boolean; status: number; text(): Promise<string>}>;

/** The most of an answer read: OpenRouter's model list is a few MB. */
const MAX_ANSWER = 32 * 1024 * 1024;

/**
 * Through node:http(s), as the chat request goes: the keep-alive connection the probe opens is the
 * one the first request then uses (one TLS handshake less).
 */
const viaNode: ProbeRequest = async (url, init) => {
  const answer = await send(url, init);
  return {ok: answer.ok, status: answer.status, text: () => answer.text(MAX_ANSWER)};
};

/** Ollama's window for a model loaded without num_ctx or OLLAMA_CONTEXT_LENGTH (GPUs under 24 GiB). */
export const OLLAMA_DEFAULT_WINDOW = 4096;

type Json = Record<string, unknown>;

/** The hosted providers nib has presets for, by origin. */
const HOSTED_ORIGINS = new Set(Object.values(PROVIDER_PRESETS).flatMap(preset => (preset.local ? [] : [new URL(preset.baseURL).origin])));
const OPENROUTER_ORIGIN = new URL(PROVIDER_PRESETS.openrouter.baseURL).origin;

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

function isHostedProvider(baseURL: string): boolean {
  return HOSTED_ORIGINS.has(originOf(baseURL) ?? '');
}

/**
 * A hosted provider's well-known model has its window in the table: known before any request.
 * Not a local server's (it may serve a model under the same name with a much smaller window), nor
 * OpenRouter's, whose list names each route's window (the table's prefixes overstate some).
 */
export function tableWindow(options: Pick<ProbeOptions, 'baseURL' | 'model'>): number | null {
  const origin = originOf(options.baseURL) ?? '';
  return options.model && origin !== OPENROUTER_ORIGIN && HOSTED_ORIGINS.has(origin) ? knownWindow(options.model) : null;
}

export async function probeServer(options: ProbeOptions): Promise<ServerInfo> {
  const base = options.baseURL.replace(/\/+$/, '');
  const root = base.replace(/\/v1$/, '');
  const get = (url: string, body?: unknown) => getJson(url, options, body);
  // The local servers' own routes (below) are asked beside the model list when the model is
  // known and the server is on this machine or this network: one round trip before print mode's
  // first request instead of two. Anywhere else they are asked only if the list says nothing.
  const local = isHostedProvider(base) ? null : options.model && onLocalNetwork(base) ? localRoutes(root, get) : undefined;

  let listStatus = 0;
  const listing = await getJson(`${base}/models`, options, undefined, status => (listStatus = status));
  const data = Array.isArray(listing?.data) ? (listing.data as unknown[]).filter(isObject) : null;
  const models = data ? data.map(entry => entry.id).filter((id): id is string => typeof id === 'string') : null;
  const wanted = options.model ?? (models?.length === 1 ? models[0] : undefined);
  const entry = data?.find(item => item.id === wanted) ?? (data?.length === 1 ? data[0] : undefined);

  // The model list alone names the window on llama.cpp, vLLM and OpenRouter.
  const meta = isObject(entry?.meta) ? entry.meta : undefined;
  if (positive(meta?.n_ctx)) return {kind: 'llama.cpp', models, window: meta!.n_ctx as number, source: 'llama.cpp /v1/models'};
  if (positive(entry?.max_model_len)) return {kind: 'vllm', models, window: entry!.max_model_len as number, source: 'vLLM /v1/models'};
  const top = isObject(entry?.top_provider) ? entry.top_provider : undefined;
  const routed = positive(top?.context_length) ? top!.context_length : entry?.context_length;
  if (positive(routed)) return {kind: 'openrouter', models, window: routed as number, source: 'OpenRouter /models'};

  // The rest answer on their own routes, at the root without /v1. No hosted provider serves them:
  // asking would only hold print mode's first request for another round trip.
  if (local !== null) {
    const info = await localServerInfo(root, wanted, models, get, local ?? localRoutes(root, get));
    if (info) return info;
  }

  const known = wanted ? knownWindow(wanted) : null;
  return {kind: 'other', models, window: known, source: known === null ? null : 'known model', ...(listStatus === 401 || listStatus === 403 ? {keyRefused: listStatus} : {})};
}

type Get = (url: string, body?: unknown) => Promise<Json | null>;

/** llama.cpp's /props, LM Studio's and Ollama's own routes, asked together. */
function localRoutes(root: string, get: Get): Promise<[props: Json | null, lmstudio: Json | null, ollama: Json | null]> {
  return Promise.all([get(`${root}/props`), get(`${root}/api/v0/models`), get(`${root}/api/ps`)]);
}

/** What the local routes' answers say; null when none says. */
async function localServerInfo(
  root: string,
  wanted: string | undefined,
  models: string[] | null,
  get: Get,
  routes: ReturnType<typeof localRoutes>,
): Promise<ServerInfo | null> {
  const [props, lmstudio, ollama] = await routes;
  const settings = isObject(props?.default_generation_settings) ? props.default_generation_settings : undefined;
  if (positive(settings?.n_ctx)) return {kind: 'llama.cpp', models, window: settings!.n_ctx as number, source: 'llama.cpp /props'};

  if (lmstudio && Array.isArray(lmstudio.data)) {
    const found = (lmstudio.data as unknown[]).filter(isObject).find(item => item.id === wanted);
    const loaded = found?.state === 'loaded' && positive(found.loaded_context_length) ? (found.loaded_context_length as number) : null;
    const window = loaded ?? (positive(found?.max_context_length) ? (found!.max_context_length as number) : null);
    // Not loaded yet: LM Studio loads it with its own default, which the model maximum only bounds.
    return {kind: 'lmstudio', models, window, source: window === null ? null : loaded ? 'LM Studio (loaded)' : 'LM Studio (model maximum)', ...(loaded ? {} : {beforeLoad: true})};
  }

  if (ollama && Array.isArray(ollama.models)) {
    const running = (ollama.models as unknown[]).filter(isObject).find(item => item.name === wanted || item.model === wanted);
    if (positive(running?.context_length)) {
      return {kind: 'ollama', models, window: running!.context_length as number, source: 'Ollama /api/ps'};
    }
    if (!wanted) return {kind: 'ollama', models, window: null, source: null};
    const shown = await get(`${root}/api/show`, {model: wanted});
    return {kind: 'ollama', models, ...ollamaBeforeLoad(shown)};
  }

  return null;
}

/**
 * An unloaded Ollama model gets num_ctx from its Modelfile, else the server's default, and never
 * more than it was trained for.
 */
function ollamaBeforeLoad(shown: Json | null): Pick<ServerInfo, 'window' | 'source' | 'beforeLoad'> {
  const parameters = typeof shown?.parameters === 'string' ? shown.parameters : '';
  const numCtx = /^\s*num_ctx\s+(\d+)/m.exec(parameters)?.[1];
  const info = isObject(shown?.model_info) ? shown.model_info : {};
  const trained = Object.entries(info).find(([key, value]) => key.endsWith('.context_length') && positive(value))?.[1] as number | undefined;
  const window = Math.min(numCtx ? Number(numCtx) : OLLAMA_DEFAULT_WINDOW, trained ?? Infinity);
  return {window, source: numCtx ? 'Ollama Modelfile num_ctx' : 'Ollama default', beforeLoad: true};
}

async function getJson(url: string, options: ProbeOptions, body?: unknown, onStatus?: (status: number) => void): Promise<Json | null> {
  const signals = [AbortSignal.timeout(options.timeoutMs ?? 1500)];
  if (options.signal) signals.push(options.signal);
  // Compressed, as fetch asks: OpenRouter's model list is a few MB, within the same deadline.
  const headers: Record<string, string> = {accept: 'application/json', 'accept-encoding': 'gzip, deflate, br'};
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const signal = AbortSignal.any(signals);
  const text = body === undefined ? undefined : JSON.stringify(body);
  try {
    const answer = await (options.request ?? viaNode)(url, {method: text === undefined ? 'GET' : 'POST', headers, ...(text === undefined ? {} : {body: text}), signal});
    // Read to its end either way, so the connection stays open for the next request.
    const read = await answer.text();
    onStatus?.(answer.status);
    return answer.ok ? jsonObject(read) : null;
  } catch {
    return null;
  }
}

/** The body as a JSON object, else null (a leading BOM is already gone: http.ts drops it, as fetch does). */
function jsonObject(text: string): Json | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function positive(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}
