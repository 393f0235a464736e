/**
 * HTTP and connection failures as one sentence a person can act on, read from error bodies of
 * every shape servers send.
 */
import {redact} from '../config/redact.js';
import type {ContextRefusal} from '../../core/chat.js';
import {readContextRefusal} from './refusal.js';
import type {HeaderGet} from './http.js';

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

/**
 * What an error object inside a 200 stream says about asking again: `transient` (overloaded,
 * rate-limited, a server error) may pass later; `refused` (too long for the window, a wrong key,
 * a model the server does not serve) fails the same way every time, so a retry only makes the
 * person wait for the same sentence; `unknown` names nib has not met. Its HTTP-like status
 * decides when it has one (vLLM's `"code": 400`); else its string `code` and `type`.
 */
export function streamErrorKind(error: ErrorObject | null, status: number | null): 'transient' | 'refused' | 'unknown' {
  if (status !== null) return isRetryableStatus(status) ? 'transient' : 'refused';
  // Compared without case or separators: OpenAI writes `invalid_request_error`, LiteLLM
  // `BadRequestError`, Anthropic-style gateways `overloaded_error`.
  const kinds = [error?.code, error?.type].flatMap(kind => (typeof kind === 'string' ? [kind.toLowerCase().replace(/[^a-z]/g, '')] : []));
  if (kinds.some(kind => TRANSIENT.test(kind))) return 'transient';
  return kinds.some(kind => REQUEST_REFUSED.test(kind)) ? 'refused' : 'unknown';
}

const TRANSIENT = /ratelimit|toomanyrequests|overload|servererror|internal|unavailable|timeout|timedout|capacity|busy/;
// `insufficient_quota` is an account out of credit, which no wait of seconds fixes.
const REQUEST_REFUSED =
  /invalid|badrequest|notfound|contextlength|contextwindow|exceedcontext|authentication|unauthorized|permission|forbidden|insufficientquota|unsupported|unprocessable|contentfilter|contentpolicy/;

/**
 * A request that got no answer. Retried, except when TLS refused the server: asking again meets
 * the same certificate, and the person has something to fix.
 */
export function connectionFailure(baseURL: string, error: unknown): Failure {
  const code = (error as {code?: unknown} | null)?.code;
  const cause = causeOf(error);
  const failure = (advice: string): Failure => ({message: `cannot reach ${baseURL} (${cause}): ${advice}`, retryable: false});
  switch (typeof code === 'string' ? code : '') {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
      return failure("its certificate is not trusted. NODE_EXTRA_CA_CERTS=/path/to/ca.pem adds the authority that signed it; NODE_USE_SYSTEM_CA=1 trusts the system's store");
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return failure("its certificate is outside its dates: check this machine's clock, or renew the server's certificate");
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return failure('its certificate names another host: check the host in the base URL');
  }
  // An https:// URL to a server that speaks plain http (OpenSSL reads its answer as a TLS record).
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || (code === 'EPROTO' && /wrong version number|packet length too long/i.test(cause))) {
    return failure('it does not speak TLS there: check whether the base URL should start with http://');
  }
  if (typeof code === 'string' && /CERT/.test(code)) return failure('TLS refused its certificate; check the base URL and the server');
  return {message: `cannot reach ${baseURL} (${cause})`, retryable: true};
}

/** The error object of a refused request's body: `{"error": {"message"}}` and the shapes below. */
export type ErrorObject = Record<string, unknown>;

/** `401 Unauthorized`: the status with its reason phrase. */
export function statusLine(status: number): string {
  // Not a top-level `import from 'node:http'`: its ESM facade reads every export, and one of them
  // loads undici (http.ts).
  return `${status} ${process.getBuiltinModule('node:http').STATUS_CODES[status] ?? 'Error'}`;
}

/**
 * A request the server answered with an error status, as a Failure. `text` is the body as it
 * came; the key is redacted before anything cuts it short (a key split by a cut would escape
 * redaction).
 */
export function describeStatus(
  target: {baseURL: string; model: string; keyEnv?: string; apiKey?: string},
  status: number,
  text: string,
  headers: HeaderGet,
): Failure {
  const {baseURL, model} = target;
  const error = errorObject(redact(text, target.apiKey ? [target.apiKey] : []));
  const detail = serverMessage(error);
  const head = `${statusLine(status)} from ${baseURL}`;
  const withDetail = (prefix: string) => (detail ? `${prefix}: ${detail}` : prefix);
  if ((status === 400 || status === 422) && /stream_options|include_usage/i.test(detail + JSON.stringify(error))) {
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
  const refusal = status < 500 ? readContextRefusal(error, detail) : null;
  if (refusal) return {message: withDetail(head), retryable: false, contextRefusal: refusal};
  const retryable = isRetryableStatus(status);
  const retryAfterMs = retryable ? retryAfter(headers) : undefined;
  return {
    message: detail ? `${head}: ${detail}` : status === 429 ? `${head}: rate limited` : head,
    retryable,
    ...(retryAfterMs === undefined ? {} : {retryAfterMs}),
  };
}

function serverMessage(error: ErrorObject): string {
  const message = error.message;
  return oneLine(typeof message === 'string' ? message : message === undefined || message === null ? '' : JSON.stringify(message));
}

/** `retry-after-ms` (OpenAI), then `retry-after` in seconds or as an HTTP date. */
export function retryAfter(headers: HeaderGet | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function causeOf(error: unknown): string {
  // The useful part ("connect ECONNREFUSED …", "other side closed") can sit at the bottom of a
  // chain of wrappers (an AbortSignal's reason, fetch's "fetch failed").
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
 * OpenAI's servers answer `{"error": {"message"}}`; vLLM, Ollama and FastAPI servers answer
 * `{"message"}`, `{"error": "text"}` or `{"detail"}`, and proxies an HTML page. All of them are
 * read into one error object, so their explanation reaches the person (and a `stream_options`
 * rejection is spotted) instead of "400 (no body)".
 */
export function errorObject(text: string): ErrorObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1];
    const message = title ?? (text.trimStart().startsWith('<') ? 'an HTML error page' : text);
    return {message: oneLine(message)};
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const record = parsed as Record<string, unknown>;
    if (record.error && typeof record.error === 'object') return record.error as ErrorObject;
    const message = record.error ?? record.message ?? record.detail;
    if (message !== undefined) return {...record, message: typeof message === 'string' ? message : JSON.stringify(message)};
  }
  return {message: oneLine(text)};
}
