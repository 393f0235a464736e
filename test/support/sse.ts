/**
 * Builders for what test/support/openai-server.ts answers, one value per request.
 *
 *   sse.text('hello')                              a streamed text answer (many small chunks, usage, [DONE])
 *   sse.text('ok', {reasoning: 'hmm'})             reasoning_content deltas first
 *   sse.toolCall('read', {path: 'x'})              one call, arguments cut into 3-char fragments
 *   sse.toolCalls([{name: 'read', arguments: {path: 'a'}}, {name: 'list', arguments: {}}], {text: 'Looking.'})
 *   sse.chunks([{choices: [...]}, ...])            your own chunk objects, framed as `data: {json}\n\n`
 *   sse.raw(readFileSync('x.sse', 'utf8'), {split: {min: 1, max: 7, seed: 42}})   byte-exact replay
 *   sse.error(401, {error: {message: 'bad key'}})  HTTP error with body and headers
 *   sse.rateLimited(1) / sse.serverError() / sse.unauthorized() / sse.rejectStreamOptions()
 *   sse.reset(sse.text('partial answer'), 120)     socket destroyed after 120 body bytes
 *   sse.stall(sse.text('abc'), 100)                headers + 100 bytes, then silence until closed
 *   sse.slow(sse.text('...'), 20)                  20 ms between writes ({paced: true}: one every 20 ms)
 *
 * Everything here is plain data, so a script can be built once and inspected.
 */
import {randomBytes} from 'node:crypto';

/** How a streamed body is cut into socket writes. */
export type Split =
  /** One write per SSE event (the default for builders). */
  | {type: 'frames'}
  /** The whole body in one write. */
  | {type: 'whole'}
  /** Writes of a fixed number of bytes. */
  | {type: 'fixed'; size: number}
  /** Writes of min..max bytes (inclusive), from a seeded RNG so failures reproduce. */
  | {type: 'random'; min: number; max: number; seed: number};

export type StreamResponse = {
  kind: 'stream';
  /** The SSE events, each already framed (`data: ...\n\n`); the body is their concatenation. */
  frames: string[];
  split: Split;
  /** Delay before each write after the first, in ms (slow streaming). */
  delayMs: number;
  /** Writes keep to a schedule of one per delayMs, making up for late timers (a rate to measure). */
  paced?: boolean;
  status: number;
  headers: Record<string, string>;
  /** Destroy the socket after this many body bytes (a connection reset mid-stream). */
  resetAfterBytes?: number;
  /** Stop writing after this many body bytes and keep the connection open (a stall). */
  stallAfterBytes?: number;
};

export type ErrorResponse = {
  kind: 'error';
  status: number;
  /** Sent as JSON when an object, as is when a string. */
  body: unknown;
  headers: Record<string, string>;
};

/** One answer to one POST /v1/chat/completions. */
export type ScriptedResponse = StreamResponse | ErrorResponse;

export type UsageSpec = {prompt_tokens: number; completion_tokens: number; total_tokens: number};

type TurnOptions = {
  /** Characters per content/reasoning delta (default 4). */
  chunkSize?: number;
  /** Streamed as `delta.reasoning_content` before the text. */
  reasoning?: string;
  /** `false` omits the usage-only chunk; an object replaces the computed one. */
  usage?: UsageSpec | false;
  finishReason?: string;
  /** Omit the final `data: [DONE]` (some servers just end the body). */
  done?: boolean;
  model?: string;
};

export type ToolCallSpec = {
  name: string;
  /** An object is sent as its JSON; a string is sent verbatim (use it for invalid JSON). */
  arguments: unknown;
  id?: string;
};

type ToolTurnOptions = TurnOptions & {
  /** Text said before the calls. */
  text?: string;
  /** Characters per argument fragment (default 3: cuts through keys and escapes). */
  fragmentSize?: number;
};

const MODEL = 'nib-test-model';

function frame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

const DONE = 'data: [DONE]\n\n';

/** Splits by code point so no delta carries half a surrogate pair (the wire carries whole chars). */
function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

function makeChunker(model: string) {
  const id = `chatcmpl-${randomBytes(6).toString('hex')}`;
  const created = Math.floor(Date.now() / 1000);
  return (choices: unknown[], extra: Record<string, unknown> = {}) =>
    frame({id, object: 'chat.completion.chunk', created, model, choices, ...extra});
}

function choice(delta: Record<string, unknown>, finishReason: string | null = null) {
  return {index: 0, delta, logprobs: null, finish_reason: finishReason};
}

function stream(frames: string[]): StreamResponse {
  return {kind: 'stream', frames, split: {type: 'frames'}, delayMs: 0, status: 200, headers: {}};
}

function tail(
  chunk: ReturnType<typeof makeChunker>,
  options: TurnOptions,
  finishReason: string,
  completionTokens: number,
): string[] {
  const frames = [chunk([choice({}, options.finishReason ?? finishReason)])];
  if (options.usage !== false) {
    const usage = options.usage ?? {
      prompt_tokens: 10,
      completion_tokens: completionTokens,
      total_tokens: 10 + completionTokens,
    };
    frames.push(chunk([], {usage}));
  }
  if (options.done !== false) frames.push(DONE);
  return frames;
}

function textFrames(chunk: ReturnType<typeof makeChunker>, text: string, options: TurnOptions): string[] {
  const size = options.chunkSize ?? 4;
  const frames: string[] = [];
  if (options.reasoning) {
    for (const piece of pieces(options.reasoning, size)) frames.push(chunk([choice({reasoning_content: piece})]));
  }
  for (const piece of pieces(text, size)) frames.push(chunk([choice({content: piece})]));
  return frames;
}

/** A streamed text answer: role chunk, content in `chunkSize`-character deltas, finish, usage, [DONE]. */
function text(answer: string, options: TurnOptions = {}): StreamResponse {
  const chunk = makeChunker(options.model ?? MODEL);
  const body = textFrames(chunk, answer, options);
  const frames = [chunk([choice({role: 'assistant', content: ''})]), ...body];
  return stream([...frames, ...tail(chunk, options, 'stop', body.length)]);
}

/** A turn that calls tools, OpenAI-style: id/type/name in the first fragment, then argument pieces. */
function toolCalls(calls: ToolCallSpec[], options: ToolTurnOptions = {}): StreamResponse {
  const chunk = makeChunker(options.model ?? MODEL);
  const frames = [chunk([choice({role: 'assistant', content: null})])];
  if (options.text) frames.push(...textFrames(chunk, options.text, options));
  const size = options.fragmentSize ?? 3;
  calls.forEach((call, index) => {
    const id = call.id ?? `call_${randomBytes(8).toString('hex')}`;
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    frames.push(
      chunk([choice({tool_calls: [{index, id, type: 'function', function: {name: call.name, arguments: ''}}]})]),
    );
    for (const piece of pieces(args, size)) {
      frames.push(chunk([choice({tool_calls: [{index, function: {arguments: piece}}]})]));
    }
  });
  return stream([...frames, ...tail(chunk, options, 'tool_calls', frames.length)]);
}

function toolCall(name: string, args: unknown, options: ToolTurnOptions & {id?: string} = {}): StreamResponse {
  return toolCalls([{name, arguments: args, ...(options.id ? {id: options.id} : {})}], options);
}

/** Your own chunk objects, each framed as `data: {json}\n\n`, then `[DONE]` unless `done: false`. */
function chunks(payloads: unknown[], options: {done?: boolean} = {}): StreamResponse {
  const frames = payloads.map(frame);
  if (options.done !== false) frames.push(DONE);
  return stream(frames);
}

/**
 * A raw body replayed byte for byte (e.g. a recorded `.sse` file). Default split: 1..7 random
 * bytes, seed 1, so every parser boundary case gets hit.
 */
function raw(body: string, options: {split?: Split} = {}): StreamResponse {
  return {...stream([body]), split: options.split ?? {type: 'random', min: 1, max: 7, seed: 1}};
}

function error(status: number, body: unknown = {}, headers: Record<string, string> = {}): ErrorResponse {
  return {kind: 'error', status, body, headers};
}

function openAiError(message: string, type: string, code: string | null = null) {
  return {error: {message, type, param: null, code}};
}

const unauthorized = () =>
  error(401, openAiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));

/** 429 with `Retry-After` in seconds (a number) or as an HTTP date (a string). */
const rateLimited = (retryAfter?: number | string) =>
  error(
    429,
    openAiError('Rate limit reached for requests.', 'requests', 'rate_limit_exceeded'),
    retryAfter === undefined ? {} : {'retry-after': String(retryAfter)},
  );

const serverError = (status = 500) => error(status, openAiError('The server had an error.', 'server_error'));

/** What servers that do not know `stream_options` answer (e.g. older vLLM / proxies). */
const rejectStreamOptions = () =>
  error(400, openAiError("Unrecognized request argument supplied: stream_options", 'invalid_request_error'));

/** The response, with the socket destroyed after `afterBytes` body bytes. */
function reset(response: StreamResponse, afterBytes: number): StreamResponse {
  return {...response, resetAfterBytes: afterBytes};
}

/** The response's headers and first `afterBytes` body bytes, then silence (connection kept open). */
function stall(response: StreamResponse = text(''), afterBytes = 0): StreamResponse {
  return {...response, stallAfterBytes: afterBytes};
}

/** The response with `delayMs` between writes; `paced`: on a schedule that makes up for late timers. */
function slow(response: StreamResponse, delayMs: number, options: {paced?: boolean} = {}): StreamResponse {
  return {...response, delayMs, ...(options.paced ? {paced: true} : {})};
}

/** The response's full body as sent on the wire. */
function bodyOf(response: StreamResponse): string {
  return response.frames.join('');
}

export const sse = {
  text,
  toolCall,
  toolCalls,
  chunks,
  raw,
  error,
  unauthorized,
  rateLimited,
  serverError,
  rejectStreamOptions,
  reset,
  stall,
  slow,
  bodyOf,
  frame,
  DONE,
};
