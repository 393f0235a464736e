/**
 * A loopback Chat Completions server for tests and benches: real HTTP, real SSE bytes.
 *
 *   import {startOpenAiServer} from './support/openai-server.js';
 *   import {sse} from './support/sse.js';
 *
 *   const server = await startOpenAiServer([sse.toolCall('read', {path: 'a.txt'}), sse.text('done')]);
 *   // point nib / createProvider at server.url (ends in /v1), any API key
 *   server.requests[1].body.messages.at(-1)   // the tool result nib sent back
 *   await server.close();
 *
 * The script is consumed one response per POST /v1/chat/completions, in order. For dynamic cases
 * pass a function instead: `startOpenAiServer((request, index) => index < 60 ? sse.toolCall(...) : sse.text('ok'))`.
 * A request past the end of an array script gets a 400 naming the request number (not a 5xx, so
 * a client does not retry and hide the mistake).
 *
 * Response kinds are built with `sse` (test/support/sse.ts): text and tool-call turns, raw `.sse`
 * replay cut into random pieces, HTTP errors with headers, a reset after N bytes, a stall, slow
 * streaming. `GET /v1/models` lists one model; a `persona` answers like llama.cpp, vLLM, Ollama,
 * LM Studio or OpenRouter instead, window and refusals included.
 */
import {readFileSync} from 'node:fs';
import {createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse} from 'node:http';
import {createServer as createHttpsServer} from 'node:https';
import {fileURLToPath} from 'node:url';
import type {AddressInfo} from 'node:net';
import type {ScriptedResponse, Split, StreamResponse} from './sse.js';
import {countTokens, metadata, refusal, type Persona} from './server-persona.js';

export {sse} from './sse.js';

/** The parsed JSON body of a chat request (loosely typed: tests poke at whatever nib sent). */
export type RecordedBody = {
  model?: string;
  messages: Array<Record<string, any>>;
  tools?: Array<Record<string, any>>;
  stream?: boolean;
  stream_options?: {include_usage?: boolean} | null;
  [key: string]: any;
};

export type RecordedRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON; `{messages: []}` plus `rawBody` when the body was not JSON. */
  body: RecordedBody;
  rawBody: string;
  /** With a persona that has a window: the server's count of the request, and whether it was over. */
  promptTokens?: number;
  overWindow?: boolean;
};

export type Script =
  | readonly ScriptedResponse[]
  | ((request: RecordedRequest, index: number) => ScriptedResponse | Promise<ScriptedResponse>);

export type OpenAiServer = {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  /** Every POST to /chat/completions, in arrival order. */
  requests: RecordedRequest[];
  /** Resolves once `count` chat requests have arrived (no polling sleeps in tests). */
  waitForRequests: (count: number) => Promise<void>;
  /** Stops listening and drops every open connection (stalled ones included). */
  close: () => Promise<void>;
};

export type ServerOptions = {
  /**
   * Answer 400, as OpenAI does, to a request whose history the real API would reject: a tool
   * call without its tool message, or a tool message that answers no call right before it.
   * The request is still recorded; it consumes no scripted response.
   */
  validate?: boolean;
  /**
   * Answer the metadata routes, and refuse requests over a window, as one kind of real server
   * does (test/support/server-persona.ts). Without it, `GET /models` lists one model.
   */
  persona?: Persona;
  /**
   * Serve https with test/support/tls's certificate for 127.0.0.1 (self-signed: a client trusts
   * it through NODE_EXTRA_CA_CERTS=TEST_CA).
   */
  tls?: boolean;
};

/** The test certificate, for NODE_EXTRA_CA_CERTS. */
export const TEST_CA = fileURLToPath(new URL('tls/cert.pem', import.meta.url));

export async function startOpenAiServer(script: Script, options: ServerOptions = {}): Promise<OpenAiServer> {
  const requests: RecordedRequest[] = [];
  const waiters: Array<{count: number; resolve: () => void}> = [];
  const closing = new AbortController();
  let rejected = 0;

  const tls = options.tls ? {cert: readFileSync(TEST_CA), key: readFileSync(fileURLToPath(new URL('tls/key.pem', import.meta.url)))} : null;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const rawBody = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const persona = options.persona;
    const meta = persona ? metadata(persona, req.method ?? 'GET', path) : null;
    if (meta) {
      res.writeHead(meta.status, {'content-type': 'application/json; charset=utf-8'});
      res.end(meta.body);
      return;
    }
    if (!persona && req.method === 'GET' && path.endsWith('/models')) {
      sendJson(res, 200, {object: 'list', data: [{id: 'nib-test-model', object: 'model', owned_by: 'nib'}]});
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      sendJson(res, 404, {error: {message: `openai-server: no route for ${req.method} ${path}`}});
      return;
    }
    const recorded: RecordedRequest = {
      method: req.method,
      path,
      headers: req.headers,
      body: parseBody(rawBody),
      rawBody,
    };
    if (persona?.window !== undefined) {
      recorded.promptTokens = countTokens(recorded.body, persona.charsPerToken);
      recorded.overWindow = recorded.promptTokens > persona.window;
    }
    const index = requests.push(recorded) - 1;
    for (const waiter of waiters.splice(0)) {
      if (requests.length >= waiter.count) waiter.resolve();
      else waiters.push(waiter);
    }
    const refused = persona && recorded.overWindow ? refusal(persona, recorded.promptTokens!) : null;
    if (refused) {
      rejected += 1;
      res.writeHead(refused.status, {'content-type': 'application/json; charset=utf-8'});
      res.end(refused.body);
      return;
    }
    const invalid = options.validate ? historyProblem(recorded.body.messages) : null;
    if (invalid) {
      rejected += 1;
      sendJson(res, 400, {error: {message: invalid, type: 'invalid_request_error', param: 'messages', code: null}});
      return;
    }
    let response: ScriptedResponse | undefined;
    try {
      const turn = index - rejected;
      response = typeof script === 'function' ? await script(recorded, turn) : script[turn];
    } catch (error) {
      // A 400, not a 5xx: the client must not retry a broken test script.
      sendJson(res, 400, {error: {message: `openai-server: the script threw: ${String(error)}`, type: 'test_script'}});
      return;
    }
    if (!response) {
      sendJson(res, 400, {
        error: {message: `openai-server: no scripted response for request #${index + 1}`, type: 'test_script'},
      });
      return;
    }
    if (response.kind === 'error') {
      const isText = typeof response.body === 'string';
      res.writeHead(response.status, {
        'content-type': isText ? 'text/plain' : 'application/json',
        ...response.headers,
      });
      res.end(isText ? response.body : JSON.stringify(response.body));
      return;
    }
    await play(res, response, closing.signal);
  };
  const server = tls ? createHttpsServer(tls, handle) : createServer(handle);

  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address() as AddressInfo;

  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/v1`,
    requests,
    waitForRequests: count =>
      requests.length >= count ? Promise.resolve() : new Promise(resolve => waiters.push({count, resolve})),
    close: async () => {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>(resolve => server.close(() => resolve()));
    },
  };
}

/** What the real API says about a history it rejects, or null when it is valid. */
export function historyProblem(messages: RecordedBody['messages']): string | null {
  let open: string[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      const at = open.indexOf(message.tool_call_id);
      if (at < 0) {
        return `Invalid parameter: messages[${index}] with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id ${message.tool_call_id}).`;
      }
      open.splice(at, 1);
      continue;
    }
    if (open.length > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`;
    }
    open = message.role === 'assistant' && Array.isArray(message.tool_calls) ? message.tool_calls.map((call: {id: string}) => call.id) : [];
  }
  return open.length > 0
    ? `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`
    : null;
}

async function readBody(req: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part);
  return Buffer.concat(parts).toString('utf8');
}

function parseBody(raw: string): RecordedBody {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object') return parsed as RecordedBody;
  } catch {
    // Not JSON: recorded as an empty chat so tests can still inspect rawBody.
  }
  return {messages: []};
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {'content-type': 'application/json'});
  res.end(JSON.stringify(body));
}

/** Streams the body in the configured writes, honouring reset/stall/delay, until done or closed. */
async function play(res: ServerResponse, response: StreamResponse, closing: AbortSignal): Promise<void> {
  res.writeHead(response.status, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...response.headers,
  });
  res.flushHeaders();
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const stop = AbortSignal.any([gone.signal, closing]);

  const limit = Math.min(response.resetAfterBytes ?? Infinity, response.stallAfterBytes ?? Infinity);
  let sent = 0;
  // A paced stream keeps to a schedule (one write every delayMs), so it has the rate it names
  // however late each timer fires (the benches); after a stall the schedule starts again from now
  // rather than catching up in a burst. Otherwise each write waits delayMs after the last, so a
  // loaded machine stretches the stream (the tests).
  let due = performance.now();
  let first = true;
  for (const piece of split(response)) {
    if (stop.aborted) return;
    if (!first && response.delayMs > 0) {
      due += response.delayMs;
      const now = performance.now();
      if (now - due > response.delayMs) due = now;
      if (!(await sleep(response.paced ? Math.max(0, due - now) : response.delayMs, stop))) return;
    }
    first = false;
    const room = limit - sent;
    const chunk = piece.length > room ? piece.subarray(0, room) : piece;
    if (chunk.length > 0) await write(res, chunk);
    sent += chunk.length;
    if (sent >= limit) break;
  }
  if (stop.aborted) return;
  if (response.resetAfterBytes !== undefined && sent >= response.resetAfterBytes) {
    // The bytes already went out (write callback); destroying now cuts the chunked body short,
    // which the client sees as a connection terminated mid-stream.
    res.socket?.destroy();
    return;
  }
  if (response.stallAfterBytes !== undefined && sent >= response.stallAfterBytes) {
    // Silence with the socket open: only the client's idle timeout or close() ends this.
    await new Promise<void>(resolve => stop.addEventListener('abort', () => resolve(), {once: true}));
    return;
  }
  res.end();
}

function write(res: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise(resolve => {
    res.write(chunk, () => resolve());
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise(resolve => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, {once: true});
  });
}

function split(response: StreamResponse): Buffer[] {
  const body = Buffer.from(response.frames.join(''), 'utf8');
  const how: Split = response.split;
  switch (how.type) {
    case 'frames':
      return response.frames.map(frame => Buffer.from(frame, 'utf8'));
    case 'whole':
      return [body];
    case 'fixed':
      return cut(body, () => how.size);
    case 'random': {
      const next = mulberry32(how.seed);
      return cut(body, () => how.min + Math.floor(next() * (how.max - how.min + 1)));
    }
  }
}

function cut(body: Buffer, size: () => number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; ) {
    const n = Math.max(1, size());
    out.push(body.subarray(at, at + n));
    at += n;
  }
  return out;
}

/** Small seeded PRNG: the same seed cuts a body the same way on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
