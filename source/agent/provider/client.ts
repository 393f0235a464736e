/**
 * The OpenAI-compatible provider: one POST through node:http(s) (http.ts says why not fetch), our
 * own SSE parser and accumulator for the body, because the `openai` SDK's stream helpers throw on
 * shapes real servers send (missing or negative index, object arguments, error objects, stray
 * non-JSON). The SDK's client is not used for the request either: it is 450 KB of modules for
 * every endpoint OpenAI has, and loading it was a third of what `nib -p` did before its first
 * request; its types still check the request body.
 *
 * Failure is reported inside the stream: the generator never throws for a network or HTTP
 * problem; it ends with `done` whose `turn.error` is one sentence a person can act on.
 */
import {randomBytes} from 'node:crypto';
import {setTimeout as delay} from 'node:timers/promises';
import {abortedFailure, causeOf, connectionFailure, describeStatus, oneLine, type Failure} from './errors.js';
import {giveUpMessage, midStreamFailure, retryDecision, skippedChunksNote} from './outcome.js';
import type {ChatCompletionCreateParamsStreaming} from 'openai/resources/chat/completions';
import {createAccumulator, type Accumulator} from './accumulate.js';
import {LIMITS} from '../../core/limits.js';
import {toWireMessages} from '../../core/messages.js';
import {redact} from '../config/redact.js';
import {createSseParser} from './sse.js';
import {httpModule, send, type Answer} from './http.js';
import {completionAsChunk, requestHeaders} from './wire.js';
import {joinRuns, type ChatProvider, type ChatRequest, type ProviderEvent} from '../../core/chat.js';

export type ProviderOptions = {
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseURL: string;
  apiKey: string;
  /** The variable the key came from, named when the server refuses it (default OPENAI_API_KEY). */
  keyEnv?: string;
  model: string;
  /** Silence on an open request before giving up (default LIMITS.idleTimeoutMs). */
  idleTimeoutMs?: number;
  /** Attempts before the first token, the first included (default LIMITS.maxAttempts). */
  maxAttempts?: number;
  /** OpenAI's organization and project headers, for accounts that need them. */
  account?: {organization?: string | undefined; project?: string | undefined};
  /** Waits between retries; tests pass one that records the delay instead of waiting. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). */
  random?: () => number;
};

/** How much of a body that is not an event stream is kept to explain it (or read it as JSON). */
const MAX_WHOLE_BODY = 4 * 1024 * 1024;

type Attempt = {accumulator: Accumulator; failure: Failure | null};

type Context = {
  /** The request's headers, the same for every request of this provider. */
  headers: Record<string, string>;
  options: Required<Pick<ProviderOptions, 'baseURL' | 'model' | 'idleTimeoutMs' | 'maxAttempts'>> &
    Pick<ProviderOptions, 'apiKey' | 'keyEnv'>;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  random: () => number;
  /** Learned once per provider: servers that reject the field keep rejecting it. */
  sendStreamOptions: boolean;
};

export function createProvider(options: ProviderOptions): ChatProvider {
  const baseURL = options.baseURL.replace(/\/+$/, '');
  // setTimeout fires at once past 2^31-1 ms; a "wait forever" setting must not mean "never wait".
  const idleTimeoutMs = Math.min(options.idleTimeoutMs ?? LIMITS.idleTimeoutMs, 2 ** 31 - 1 - 60_000);
  const context: Context = {
    headers: requestHeaders(options.apiKey, options.account),
    options: {
      baseURL,
      apiKey: options.apiKey,
      ...(options.keyEnv ? {keyEnv: options.keyEnv} : {}),
      model: options.model,
      idleTimeoutMs,
      maxAttempts: Math.max(1, options.maxAttempts ?? LIMITS.maxAttempts),
    },
    // Rejects when the signal aborts; the caller reports that like any other abort.
    sleep: options.sleep ?? ((ms, signal) => delay(ms, undefined, {signal})),
    random: options.random ?? Math.random,
    sendStreamOptions: true,
  };
  return {
    model: options.model,
    baseURL,
    stream: request => streamTurn(context, request),
    // Loads node:http(s) (TLS with it) ahead of the TUI's first request.
    prepare: async () => {
      httpModule(baseURL);
    },
  };
}

async function* streamTurn(context: Context, request: ChatRequest): AsyncGenerator<ProviderEvent> {
  const {maxAttempts} = context.options;
  const idPrefix = `call_${randomBytes(4).toString('hex')}`;
  let attempt = 1;
  for (;;) {
    const result: Attempt = yield* attemptOnce(context, request, idPrefix);
    const {accumulator, failure} = result;
    if (!failure) {
      yield* skippedNotice(context, accumulator);
      yield {type: 'done', turn: accumulator.finish()};
      return;
    }
    const retry = retryDecision(failure, {attempt, maxAttempts, hasOutput: accumulator.hasOutput, sendsStreamOptions: context.sendStreamOptions, random: context.random});
    if (retry === 'without-stream-options') {
      context.sendStreamOptions = false;
      continue;
    }
    if (retry === null) {
      const turn = failedTurn(context, accumulator, giveUpMessage(failure, attempt), failure.aborted === true);
      yield* skippedNotice(context, accumulator);
      yield {type: 'done', turn: failure.contextRefusal ? {...turn, contextRefusal: failure.contextRefusal} : turn};
      return;
    }
    yield {
      type: 'retry',
      attempt: attempt + 1,
      delayMs: retry,
      message: scrub(
        context,
        `${failure.message}; retrying in ${seconds(retry)} s (attempt ${attempt + 1} of ${maxAttempts})`,
      ),
    };
    try {
      await context.sleep(retry, request.signal);
    } catch {
      // Only an abort interrupts the wait; it is reported below like any other abort.
    }
    if (request.signal.aborted) {
      yield {type: 'done', turn: failedTurn(context, accumulator, 'aborted', true)};
      return;
    }
    attempt++;
  }
}

/** The notice for chunks that were not JSON (see skippedChunksNote). */
function* skippedNotice(context: Context, accumulator: Accumulator): Generator<ProviderEvent> {
  const note = skippedChunksNote(accumulator.malformedChunks, context.options.baseURL);
  if (note) yield {type: 'notice', text: scrub(context, note)};
}

function failedTurn(context: Context, accumulator: Accumulator, message: string, aborted: boolean) {
  const turn = accumulator.finish();
  return {...turn, error: scrub(context, message), aborted};
}

async function* attemptOnce(
  context: Context,
  request: ChatRequest,
  idPrefix: string,
): AsyncGenerator<ProviderEvent, Attempt> {
  const {baseURL, model, idleTimeoutMs} = context.options;
  const accumulator = createAccumulator({makeId: position => `${idPrefix}_${position}`, tools: request.tools});
  const attempt = (failure: Failure | null): Attempt => ({accumulator, failure});
  if (request.signal.aborted) return attempt(abortedFailure());

  const idle = new AbortController();
  const signal = AbortSignal.any([request.signal, idle.signal]);
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  // Armed only while nib waits on the network, so a slow consumer never counts as silence.
  const arm = () => {
    timer = setTimeout(() => {
      timedOut = true;
      idle.abort();
    }, idleTimeoutMs);
  };
  const disarm = () => clearTimeout(timer);
  const idleFailure = (): Failure => ({
    message: `no data from ${baseURL} for ${seconds(idleTimeoutMs)} s`,
    retryable: false,
  });

  const body: ChatCompletionCreateParamsStreaming = {
    model,
    messages: toWireMessages(request.messages) as ChatCompletionCreateParamsStreaming['messages'],
    stream: true,
    ...(context.sendStreamOptions ? {stream_options: {include_usage: true}} : {}),
    ...(request.tools.length > 0 ? {tools: [...request.tools]} : {}),
  };

  let response: Answer;
  arm();
  try {
    response = await send(`${baseURL}/chat/completions`, {method: 'POST', headers: context.headers, body: JSON.stringify(body), signal});
    if (!response.ok) {
      // A body cut short still leaves the status to explain, unless nib cut it.
      const text = await response.text(MAX_WHOLE_BODY).catch(() => '');
      if (request.signal.aborted) return attempt(abortedFailure());
      if (timedOut) return attempt(idleFailure());
      return attempt(describeStatus(context.options, response.status, text, response.headers));
    }
  } catch (error) {
    if (request.signal.aborted) return attempt(abortedFailure());
    if (timedOut) return attempt(idleFailure());
    return attempt(connectionFailure(baseURL, error));
  } finally {
    disarm();
  }
  request.onResponse?.();

  const parser = createSseParser();
  // Not every 200 is an event stream: some servers and proxies ignore `stream: true` and answer
  // one JSON completion, and a base URL that points at a website gets an HTML page. The body is
  // kept until the first event, so one with no event at all can be looked at whole. Judged by
  // content, not content-type: some servers label a real stream application/json.
  const head: string[] = [];
  let headLength = 0;
  let sawEvent = false;
  try {
    for (;;) {
      arm();
      let piece: string | null;
      try {
        piece = await response.read();
      } finally {
        disarm();
      }
      const text = piece ?? '';
      if (!sawEvent && headLength < MAX_WHOLE_BODY) {
        head.push(text);
        headLength += text.length;
      }
      const events = piece === null ? [...parser.feed(text), ...parser.end()] : parser.feed(text);
      if (events.length > 0) sawEvent = true;
      // What arrived in one read goes on as one delta per run of text or reasoning: at full
      // speed a read holds hundreds of events, and each delta costs every layer above a yield.
      yield* joinRuns(events.flatMap(event => accumulator.pushEvent(event)));
      // Not retried: the same request is likely to meet the same server doing the same thing.
      if (parser.lineTooLong) {
        const size = Math.round(LIMITS.sseMaxLineChars / 1024 / 1024);
        return attempt({message: `${baseURL} sent a line of more than ${size} MB without a line break; nib stopped reading the stream`, retryable: false});
      }
      // Stop at [DONE] even if a proxy keeps the body open after it.
      if (piece === null || accumulator.sawDone) break;
    }
  } catch (error) {
    if (request.signal.aborted) return attempt(abortedFailure());
    if (timedOut) return attempt(idleFailure());
    return attempt({message: `the connection to ${baseURL} was cut mid-stream (${causeOf(error)})`, retryable: true});
  } finally {
    // Releases the socket when we stop early (DONE, abort, or the consumer stopped iterating).
    response.close();
  }
  // A body cut by an abort may look like one that ended.
  if (request.signal.aborted) return attempt(abortedFailure());
  if (timedOut) return attempt(idleFailure());

  // SSE comments (": keep-alive") alone are a stream that ended early, not another format.
  const unstreamed = sawEvent ? '' : head.join('').replace(/^:.*$/gm, '').trim();
  if (unstreamed !== '') {
    const chunk = completionAsChunk(unstreamed);
    if (!chunk) {
      const title = /<title>([^<]*)<\/title>/i.exec(unstreamed)?.[1]?.trim();
      const what = unstreamed.startsWith('<')
        ? `an HTML page${title ? ` ("${oneLine(title)}")` : ''}`
        : `"${oneLine(unstreamed.slice(0, 60))}"`;
      return attempt({message: `${baseURL} answered with ${what}, not an event stream: check the base URL (it usually ends in /v1)`, retryable: false});
    }
    for (const delta of accumulator.pushChunk(chunk)) yield delta;
  }
  // Text held back while it might have been tool-call markup, now that the body is complete.
  for (const delta of accumulator.end()) yield delta;
  if (accumulator.failed) {
    // The server sent an error object inside a 200 stream (it can fail after starting).
    const turn = accumulator.finish();
    return attempt(midStreamFailure(baseURL, turn.error ?? '', accumulator.errorBody, accumulator.errorStatus));
  }
  if (!accumulator.sawDone && accumulator.finishReason === null) {
    // No [DONE] is fine after a finish_reason (llama.cpp); with neither, the answer is cut short.
    return attempt({message: `the stream from ${baseURL} ended before the answer was finished`, retryable: true});
  }
  if (accumulator.finishReason === null && !accumulator.hasOutput) {
    // `data: [DONE]` and nothing before it is not an empty answer but a server (or a proxy that
    // lost its upstream) that produced none. Retried like a stream cut before its first token:
    // nothing reached the person, so a second try repeats nothing.
    return attempt({message: `${baseURL} ended the stream without an answer (no text, no tool call, no finish_reason)`, retryable: true});
  }
  return attempt(null);
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

/** The key never leaves nib in a message, whatever a server echoed back. */
function scrub(context: Context, message: string): string {
  return redact(message, [context.options.apiKey]);
}

