/**
 * HTTP and connection failures as one sentence a person can act on, and error bodies of every
 * shape servers send reshaped into the one the SDK reads.
 */
import type {APIError} from 'openai';

/** The SDK's error classes, passed in: the SDK loads on the first request (see client.ts). */
export type SdkErrors = Pick<typeof import('openai'), 'APIConnectionError' | 'APIError' | 'APIUserAbortError'>;
import {redact} from '../config/redact.js';
import type {ContextRefusal} from '../../core/chat.js';
import {readContextRefusal} from './refusal.js';

export type Failure = {
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  aborted?: boolean;
  /** The server refused `stream_options`; the same request without it may work. */
  rejectsStreamOptions?: boolean;
  /** The server refused the request as longer than its window. */
  contextRefusal?: ContextRefusal;
};

export function abortedFailure(): Failure {
  return {message: 'aborted', retryable: false, aborted: true};
}

/** Timeouts, conflicts, rate limits and server errors may pass on a second try; the rest will not. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function describeRequestError(target: {baseURL: string; model: string; keyEnv?: string}, error: unknown, sdk: SdkErrors): Failure {
  const {baseURL, model} = target;
  const {APIConnectionError, APIError, APIUserAbortError} = sdk;
  if (error instanceof APIUserAbortError) return abortedFailure();
  if (error instanceof APIConnectionError) {
    return {message: `cannot reach ${baseURL} (${causeOf(error)})`, retryable: true};
  }
  if (!(error instanceof APIError) || error.status === undefined) {
    return {message: `request to ${baseURL} failed: ${causeOf(error)}`, retryable: false};
  }
  const status = error.status;
  const detail = serverMessage(error);
  // Not a top-level `import from 'node:http'`: its ESM facade reads every export, and one of them
  // loads undici at startup (see the fetch above).
  const head = `${status} ${process.getBuiltinModule('node:http').STATUS_CODES[status] ?? 'Error'} from ${baseURL}`;
  const withDetail = (prefix: string) => (detail ? `${prefix}: ${detail}` : prefix);
  if ((status === 400 || status === 422) && /stream_options|include_usage/i.test(detail + JSON.stringify(error.error ?? ''))) {
    return {message: withDetail(head), retryable: false, rejectsStreamOptions: true};
  }
  switch (status) {
    // The server's 401 text often echoes part of the key; the sentence says what to do instead.
    case 401:
      return {message: `${head}: check ${target.keyEnv ?? 'OPENAI_API_KEY'}`, retryable: false};
    case 403:
      return {message: withDetail(`${head}: the API key is not allowed to use model "${model}"`), retryable: false};
    case 404:
      return {message: withDetail(`${head}: check the base URL and the model name "${model}"`), retryable: false};
  }
  // Never retried: the same request is exactly as long the next time.
  const refusal = status < 500 ? readContextRefusal(error.error, detail) : null;
  if (refusal) return {message: withDetail(head), retryable: false, contextRefusal: refusal};
  const retryable = isRetryableStatus(status);
  const retryAfterMs = retryable ? retryAfter(error.headers) : undefined;
  return {
    message: detail ? `${head}: ${detail}` : status === 429 ? `${head}: rate limited` : head,
    retryable,
    ...(retryAfterMs === undefined ? {} : {retryAfterMs}),
  };
}

function serverMessage(error: APIError): string {
  const body = error.error as unknown;
  let text = '';
  if (typeof body === 'string') text = body;
  else if (body && typeof body === 'object' && typeof (body as {message?: unknown}).message === 'string') {
    text = (body as {message: string}).message;
  }
  return oneLine(text);
}

/** `retry-after-ms` (OpenAI), then `retry-after` in seconds or as an HTTP date. */
export function retryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function causeOf(error: unknown): string {
  // undici hides the useful part ("connect ECONNREFUSED …", "other side closed") at the bottom
  // of a chain of wrappers ("Connection error.", "fetch failed", "terminated").
  let deepest: unknown = error;
  for (let depth = 0; depth < 5 && deepest instanceof Error && deepest.cause !== undefined; depth++) {
    deepest = deepest.cause;
  }
  if (deepest instanceof Error) {
    const code = (deepest as {code?: unknown}).code;
    return oneLine(deepest.message || (typeof code === 'string' ? code : 'unknown error'));
  }
  return oneLine(String(deepest));
}

/** One line without a closing period, so it reads inside a longer sentence. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
}

/**
 * The SDK only reads error bodies shaped `{"error": {"message"}}`. vLLM, Ollama and FastAPI
 * servers answer `{"message"}`, `{"error": "text"}` or `{"detail"}`; reshaping them here keeps
 * their explanation (and lets us spot a `stream_options` rejection) instead of "400 (no body)".
 */
export function readableErrors(inner: typeof fetch, apiKey: string): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) return response;
    // Redacted before anything cuts the text short: a key split by the cut would escape scrub().
    const text = redact(await response.text().catch(() => ''), [apiKey]);
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    headers.set('content-type', 'application/json');
    return new Response(JSON.stringify(errorBody(text)), {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}

function errorBody(text: string): {error: Record<string, unknown>} {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1];
    const message = title ?? (text.trimStart().startsWith('<') ? 'an HTML error page' : text);
    return {error: {message: oneLine(message)}};
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const record = parsed as Record<string, unknown>;
    if (record.error && typeof record.error === 'object') return {error: record.error as Record<string, unknown>};
    const message = record.error ?? record.message ?? record.detail;
    if (message !== undefined) {
      return {error: {...record, message: typeof message === 'string' ? message : JSON.stringify(message)}};
    }
  }
  return {error: {message: oneLine(text)}};
}
