import {createServer} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {createProvider, type ProviderOptions} from '../../../source/agent/provider/client.js';
import {connectionFailure, retryAfter} from '../../../source/agent/provider/errors.js';
import type {AssistantTurn, ProviderEvent, ToolDefinition} from '../../../source/core/chat.js';
import {startOpenAiServer, type OpenAiServer, type Script} from '../../support/openai-server.js';
import {sse} from '../../support/sse.js';

const KEY = 'sk-test-SECRET-0123456789';

const servers: OpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
});

async function serve(script: Script): Promise<OpenAiServer> {
  const server = await startOpenAiServer(script);
  servers.push(server);
  return server;
}

type Run = {events: ProviderEvent[]; turn: AssistantTurn; text: string; delays: number[]};

/** Runs one request; retries wait through a recording sleep unless `realSleep`. */
async function run(
  server: OpenAiServer | string,
  options: Partial<ProviderOptions> & {signal?: AbortSignal; tools?: ToolDefinition[]; realSleep?: boolean} = {},
): Promise<Run> {
  const delays: number[] = [];
  const {signal, tools, realSleep, ...rest} = options;
  const provider = createProvider({
    baseURL: typeof server === 'string' ? server : server.url,
    apiKey: KEY,
    model: 'test-model',
    random: () => 0.5,
    ...(realSleep
      ? {}
      : {
          sleep: async (ms: number) => {
            delays.push(ms);
          },
        }),
    ...rest,
  });
  const events: ProviderEvent[] = [];
  for await (const event of provider.stream({
    messages: [{type: 'user', content: 'hello'}],
    tools: tools ?? [],
    signal: signal ?? AbortSignal.timeout(20_000),
  })) {
    events.push(event);
  }
  const last = events.at(-1);
  if (last?.type !== 'done') throw new Error('stream did not end with done');
  const text = events.map(event => (event.type === 'text-delta' ? event.text : '')).join('');
  return {events, turn: last.turn, text, delays};
}

function deltasOf(result: Run): Array<[string, string]> {
  return result.events.flatMap(event => (event.type === 'text-delta' || event.type === 'reasoning-delta' ? [[event.type, event.text] as [string, string]] : []));
}

function messagesOf(result: Run): string[] {
  return result.events.flatMap(event =>
    event.type === 'retry' ? [event.message] : event.type === 'done' && event.turn.error ? [event.turn.error] : [],
  );
}

describe('createProvider', () => {
  it('passes on what arrived in one read as one delta per run of reasoning or text', async () => {
    const server = await serve([{...sse.text('Hello there, person.', {reasoning: 'Greet them.'}), split: {type: 'whole'}}]);
    const result = await run(server);
    expect(deltasOf(result)).toEqual([
      ['reasoning-delta', 'Greet them.'],
      ['text-delta', 'Hello there, person.'],
    ]);
  });

  it('streams text and reasoning deltas and reports usage', async () => {
    // A few ms between events, so they arrive in separate reads.
    const server = await serve([sse.slow(sse.text('Hello there, person.', {reasoning: 'Greet them.'}), 5)]);
    const result = await run(server);
    expect(result.text).toBe('Hello there, person.');
    expect(result.events.filter(event => event.type === 'text-delta').length).toBeGreaterThan(1);
    expect(result.turn).toMatchObject({
      text: 'Hello there, person.',
      reasoning: 'Greet them.',
      finishReason: 'stop',
      error: null,
      aborted: false,
      usage: {promptTokens: 10},
    });
    const body = server.requests[0]!.body;
    expect(body).toMatchObject({model: 'test-model', stream: true, stream_options: {include_usage: true}});
    expect(body.messages).toEqual([{role: 'user', content: 'hello'}]);
    expect(body.tools).toBeUndefined();
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('posts JSON to /chat/completions under the base URL, naming nib and the OpenAI account variables', async () => {
    const server = await serve([sse.text('ok'), sse.text('ok')]);
    await run(`${server.url}/`);
    expect(server.requests[0]).toMatchObject({method: 'POST', path: '/v1/chat/completions'});
    const {headers} = server.requests[0]!;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('nib/dev');
    expect(headers['openai-organization']).toBeUndefined();
    await run(server, {account: {organization: 'org-1', project: 'proj-1'}});
    expect(server.requests[1]!.headers).toMatchObject({'openai-organization': 'org-1', 'openai-project': 'proj-1'});
  });

  it('sends tools and reassembles a fragmented call', async () => {
    const server = await serve([sse.toolCall('read', {path: 'src/"quoted"\\x.ts'}, {id: 'call_1', fragmentSize: 2})]);
    const tools: ToolDefinition[] = [
      {type: 'function', function: {name: 'read', description: 'Read a file', parameters: {type: 'object'}}},
    ];
    const {turn} = await run(server, {tools});
    expect(server.requests[0]!.body.tools).toEqual(tools);
    expect(turn.toolCalls).toEqual([{id: 'call_1', name: 'read', arguments: '{"path":"src/\\"quoted\\"\\\\x.ts"}'}]);
    expect(turn.finishReason).toBe('tool_calls');
  });

  it('401: one request, one sentence, no key', async () => {
    // A server that echoes the key back must not get it printed.
    const server = await serve([sse.error(401, {error: {message: `Incorrect API key provided: ${KEY}`}})]);
    const result = await run(server);
    expect(server.requests).toHaveLength(1);
    expect(result.turn.error).toBe(`401 Unauthorized from ${server.url}: check OPENAI_API_KEY`);
    expect(result.events.some(event => event.type === 'retry')).toBe(false);
    expect(JSON.stringify(result.events)).not.toContain(KEY);
  });

  it('a key echoed where a long message is cut leaves no part of it behind', async () => {
    // Messages are cut at 300 characters; redacting after the cut would leave the key's head.
    const filler = 'x'.repeat(280);
    const server = await serve([
      sse.error(403, {error: {message: `${filler} key ${KEY} is not allowed`}}),
      sse.error(400, `${filler} key ${KEY} plain text`),
    ]);
    for (let i = 0; i < 2; i++) {
      const {turn} = await run(server);
      expect(turn.error).toContain('[redacted]');
      expect(turn.error).not.toContain(KEY.slice(0, 8));
    }
  });

  it.each([
    [403, /^403 Forbidden from .*: the API key is not allowed to use model "test-model": nope$/],
    [404, /^404 Not Found from .*: check the base URL and the model name "test-model": nope$/],
    [400, /^400 Bad Request from .*: nope$/],
  ])('%i is not retried and becomes one sentence', async (status, pattern) => {
    const server = await serve([sse.error(status, {error: {message: 'nope'}})]);
    const {turn} = await run(server);
    expect(server.requests).toHaveLength(1);
    expect(turn.error).toMatch(pattern);
  });

  it('keeps the explanation from non-OpenAI error bodies (vLLM, Ollama, FastAPI)', async () => {
    const server = await serve([
      sse.error(400, {object: 'error', message: 'max_tokens is too large', type: 'BadRequestError', code: 400}),
      sse.error(404, {error: 'model "qwen" not found, try pulling it first'}),
      sse.error(422, {detail: [{loc: ['body', 'messages'], msg: 'field required'}]}),
      sse.error(400, 'plain text failure'),
    ]);
    expect((await run(server)).turn.error).toContain('max_tokens is too large');
    expect((await run(server)).turn.error).toContain('model "qwen" not found');
    expect((await run(server)).turn.error).toContain('field required');
    expect((await run(server)).turn.error).toContain('plain text failure');
  });

  it('429 with Retry-After: 1 waits a second, then succeeds', async () => {
    const server = await serve([sse.rateLimited(1), sse.text('after the wait')]);
    const started = Date.now();
    const result = await run(server, {realSleep: true});
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(result.turn.error).toBeNull();
    expect(result.text).toBe('after the wait');
    const retry = result.events.find(event => event.type === 'retry');
    expect(retry).toMatchObject({attempt: 2, delayMs: 1000});
    expect(server.requests).toHaveLength(2);
  });

  it('500, 500, then success: backoff grows, with jitter', async () => {
    const server = await serve([sse.serverError(), sse.serverError(502), sse.text('third time')]);
    const result = await run(server);
    expect(result.text).toBe('third time');
    expect(result.turn.error).toBeNull();
    // random() = 0.5 puts each wait at 75% of its ceiling (500 ms, then 1000 ms).
    expect(result.delays).toEqual([375, 750]);
    expect(messagesOf(result)[0]).toMatch(/^500 Internal Server Error from .*; retrying in 0.4 s \(attempt 2 of 5\)$/);
  });

  it('gives up after maxAttempts and says so', async () => {
    const server = await serve(() => sse.serverError(503));
    const {turn, delays} = await run(server, {maxAttempts: 3});
    expect(server.requests).toHaveLength(3);
    expect(delays).toHaveLength(2);
    expect(turn.error).toMatch(/^503 Service Unavailable from .*\(gave up after 3 attempts\)$/);
  });

  it('a Retry-After beyond a minute is not waited for, and the error says how long the server asked', async () => {
    const server = await serve([sse.rateLimited(3600), sse.text('never')]);
    const {turn} = await run(server);
    expect(server.requests).toHaveLength(1);
    expect(turn.error).toMatch(/^429 Too Many Requests from .*: Rate limit reached for requests \(the server asks to wait 60 min, longer than nib waits by itself: try again then\)$/);
  });

  it('connection refused is retried, then explained', async () => {
    const closed = await startOpenAiServer([]);
    await closed.close();
    const {turn, delays} = await run(closed.url, {maxAttempts: 2});
    expect(delays).toHaveLength(1);
    expect(turn.error).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:\d+\/v1 \(.*ECONNREFUSED.*\)/);
  });

  it('a reset mid-stream keeps the partial text and fails without retrying', async () => {
    const answer = 'The partial answer that gets cut off somewhere in the middle.';
    const full = sse.text(answer);
    const cutAt = Buffer.byteLength(sse.bodyOf(full)) / 2;
    const server = await serve([sse.reset(full, cutAt), sse.text('must not be requested')]);
    const started = Date.now();
    const result = await run(server);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(server.requests).toHaveLength(1);
    expect(result.text.length).toBeGreaterThan(0);
    expect(answer.startsWith(result.text)).toBe(true);
    expect(result.turn.text).toBe(result.text);
    expect(result.turn.error).toMatch(/^the connection to .* was cut mid-stream/);
  });

  it('a reset before the first token is retried', async () => {
    const server = await serve([sse.reset(sse.text('lost'), 40), sse.text('second try')]);
    const result = await run(server);
    expect(result.text).toBe('second try');
    expect(result.turn.error).toBeNull();
    expect(server.requests).toHaveLength(2);
  });

  it('a body that ends with neither finish_reason nor [DONE] is a failed turn', async () => {
    const server = await serve([
      sse.chunks([{choices: [{index: 0, delta: {content: 'half an ans'}, finish_reason: null}]}], {done: false}),
    ]);
    const {turn} = await run(server, {maxAttempts: 1});
    expect(turn.text).toBe('half an ans');
    expect(turn.error).toMatch(/ended before the answer was finished/);
  });

  it('chunks that are not JSON are skipped and counted in a notice before done; the answer stays', async () => {
    const chunk = (content: string) => `data: {"choices":[{"index":0,"delta":{"content":"${content}"}}]}\n\n`;
    const body = `${chunk('Before ')}data: {"choices":[{"ind\n\n${chunk('After')}data: not json\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`;
    const server = await serve([sse.raw(body)]);
    const {events, turn} = await run(server);
    expect(turn).toMatchObject({text: 'Before After', error: null, malformedChunks: 2});
    expect(events.slice(-2)).toEqual([
      {type: 'notice', text: `2 chunks of the stream from ${server.url} were not JSON and were skipped; the answer may be missing a piece`},
      expect.objectContaining({type: 'done'}),
    ]);
  });

  it('half an emoji as the last content is shown as U+FFFD, not dropped', async () => {
    const server = await serve([sse.raw('data: {"choices":[{"index":0,"delta":{"content":"a\\ud83d"}}]}\n\ndata: [DONE]\n\n')]);
    const result = await run(server);
    expect(result.text).toBe('a\uFFFD');
    expect(result.turn).toMatchObject({text: 'a\uFFFD', error: null});
  });

  it('a stream of only [DONE] is no answer: retried, then a failed turn', async () => {
    const server = await serve([sse.raw(sse.DONE), sse.raw(sse.DONE), sse.text('second try'), sse.raw(sse.DONE)]);
    const retried = await run(server);
    expect(retried.text).toBe('second try');
    expect(messagesOf(retried)[0]).toMatch(/ended the stream without an answer \(no text, no tool call, no finish_reason\); retrying in/);
    const {turn} = await run(server, {maxAttempts: 1});
    expect(turn.error).toBe(`${server.url} ended the stream without an answer (no text, no tool call, no finish_reason)`);
  });

  it('an error object before any output is retried; after output it fails the turn', async () => {
    const failing = sse.chunks([{error: {message: 'overloaded', type: 'server_error'}}], {done: false});
    const server = await serve([failing, sse.text('recovered')]);
    expect((await run(server)).text).toBe('recovered');

    const late = await serve([
      sse.chunks(
        [{choices: [{index: 0, delta: {content: 'Some text'}}]}, {error: {message: 'overloaded', type: 'server_error'}}],
        {done: false},
      ),
    ]);
    const {turn} = await run(late);
    expect(late.requests).toHaveLength(1);
    expect(turn.text).toBe('Some text');
    expect(turn.error).toBe(`${late.url} reported an error mid-stream: overloaded (server_error)`);
  });

  it('an 8 MB line passes; a line past 32 MB with no break stops the stream, without a retry', {timeout: 20_000}, async () => {
    const content = 'y'.repeat(8 * 1024 * 1024);
    const big = sse.chunks([{choices: [{index: 0, delta: {content}, finish_reason: 'stop'}]}]);
    const endless = {...sse.raw(`data: {"choices":[{"index":0,"delta":{"content":"${'z'.repeat(33 * 1024 * 1024)}`), split: {type: 'fixed' as const, size: 64 * 1024}};
    const server = await serve([big, endless, sse.text('never asked for')]);
    const passed = await run(server);
    expect(passed.turn.error).toBeNull();
    expect(passed.turn.text.length).toBe(content.length);
    const stopped = await run(server);
    expect(server.requests).toHaveLength(2);
    expect(stopped.events.some(event => event.type === 'retry')).toBe(false);
    expect(stopped.turn.error).toBe(`${server.url} sent a line of more than 32 MB without a line break; nib stopped reading the stream`);
  });

  it('an error object that says the request is bad is not retried; one that says try later is', async () => {
    const inStream = (code: string, type: string) => sse.chunks([{error: {message: 'no', type, code}}], {done: false});
    const server = await serve([
      inStream('invalid_api_key', 'invalid_request_error'),
      inStream('model_not_found', 'invalid_request_error'),
      inStream('rate_limit_exceeded', 'requests'),
      sse.text('after the limit'),
    ]);
    expect((await run(server)).turn.error).toBe(`${server.url} reported an error mid-stream: no (invalid_api_key)`);
    expect((await run(server)).turn.error).toBe(`${server.url} reported an error mid-stream: no (model_not_found)`);
    expect(server.requests).toHaveLength(2);
    const limited = await run(server);
    expect(limited.text).toBe('after the limit');
    expect(server.requests).toHaveLength(4);
  });

  it('a context-length error inside a 200 stream is a refusal like the 400, not retried', async () => {
    const message = "This model's maximum context length is 4096 tokens. However, your messages resulted in 5000 tokens.";
    const server = await serve([
      sse.chunks([{error: {message, type: 'invalid_request_error', code: 'context_length_exceeded'}}]),
      sse.text('never asked for'),
    ]);
    const {turn, events} = await run(server);
    expect(server.requests).toHaveLength(1);
    expect(events.some(event => event.type === 'retry')).toBe(false);
    expect(turn.contextRefusal).toEqual({window: 4096, promptTokens: 5000});
    expect(turn.error).toBe(`${server.url} reported an error mid-stream: ${message} (context_length_exceeded)`);
  });

  it('a stall hits the idle timeout within 5 s and keeps what arrived', async () => {
    const full = sse.text('Before the silence');
    const server = await serve([sse.stall(full, Buffer.byteLength(sse.bodyOf(full)) - 40)]);
    const started = Date.now();
    const result = await run(server, {idleTimeoutMs: 1000});
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.turn.text).toBe('Before the silence');
    expect(result.turn.error).toBe(`no data from ${server.url} for 1 s`);
    expect(server.requests).toHaveLength(1);
  });

  it('a stall before the first byte is the same idle timeout', async () => {
    const server = await serve([sse.stall(sse.text('x'), 0)]);
    const {turn} = await run(server, {idleTimeoutMs: 300});
    expect(turn.error).toBe(`no data from ${server.url} for 0.3 s`);
  });

  it('an error status whose body stalls: an abort is "aborted" and silence is the idle timeout, not the status', async () => {
    // Headers of a 503, then part of its body, then nothing.
    const stalled = createServer((request, response) => {
      request.resume();
      response.writeHead(503);
      response.write('{"error":');
    });
    await new Promise<void>(resolve => stalled.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}/v1`;
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const aborted = await run(url, {signal: controller.signal, idleTimeoutMs: 5000});
      expect(aborted.turn).toMatchObject({aborted: true, error: 'aborted'});
      const silent = await run(url, {idleTimeoutMs: 200});
      expect(silent.turn.error).toBe(`no data from ${url} for 0.2 s`);
      expect(silent.events.some(event => event.type === 'retry')).toBe(false);
    } finally {
      stalled.closeAllConnections();
      await new Promise(resolve => stalled.close(resolve));
    }
  });

  it('a slow consumer does not count as silence', async () => {
    const server = await serve([sse.text('one two three four five six', {chunkSize: 3})]);
    const provider = createProvider({baseURL: server.url, apiKey: KEY, model: 'm', idleTimeoutMs: 100});
    const stream = provider.stream({messages: [{type: 'user', content: 'x'}], tools: [], signal: AbortSignal.timeout(10_000)});
    let turn: AssistantTurn | undefined;
    for await (const event of stream) {
      if (event.type === 'done') turn = event.turn;
      else await new Promise(resolve => setTimeout(resolve, 30));
    }
    expect(turn?.error).toBeNull();
    expect(turn?.text).toBe('one two three four five six');
  });

  it('a server that ignores stream: true and sends one JSON completion still works', async () => {
    const completion = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Reading both.',
            tool_calls: [
              {id: 'c1', type: 'function', function: {name: 'read', arguments: '{"path":"a"}'}},
              {id: 'c2', type: 'function', function: {name: 'read', arguments: '{"path":"b"}'}},
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: {prompt_tokens: 5, completion_tokens: 7, total_tokens: 12},
    };
    const json = {...sse.raw(JSON.stringify(completion)), headers: {'content-type': 'application/json'}};
    const server = await serve([json]);
    const {turn, text} = await run(server);
    expect(turn.error).toBeNull();
    expect(text).toBe('Reading both.');
    expect(turn.toolCalls).toEqual([
      {id: 'c1', name: 'read', arguments: '{"path":"a"}'},
      {id: 'c2', name: 'read', arguments: '{"path":"b"}'},
    ]);
    expect(turn.usage).toEqual({promptTokens: 5, completionTokens: 7, totalTokens: 12});
  });

  it('a real stream labelled application/json is still read as a stream', async () => {
    const server = await serve([{...sse.text('streamed anyway'), headers: {'content-type': 'application/json'}}]);
    const {turn, text} = await run(server);
    expect(turn.error).toBeNull();
    expect(text).toBe('streamed anyway');
  });

  it('an HTML page with status 200 is one clear sentence about the base URL, not retried', async () => {
    const page = {...sse.raw('<html><head><title>Sign in</title></head><body>…</body></html>'), headers: {'content-type': 'text/html'}};
    const server = await serve([page, page]);
    const {turn} = await run(server);
    expect(server.requests).toHaveLength(1);
    expect(turn.error).toBe(`${server.url} answered with an HTML page ("Sign in"), not an event stream: check the base URL (it usually ends in /v1)`);
  });

  it('a 400 about stream_options is retried once without it, and remembered', async () => {
    const server = await serve(request =>
      request.body.stream_options ? sse.rejectStreamOptions() : sse.text('fine without usage', {usage: false}),
    );
    const provider = createProvider({baseURL: server.url, apiKey: KEY, model: 'm'});
    const ask = async () => {
      let turn: AssistantTurn | undefined;
      for await (const event of provider.stream({messages: [{type: 'user', content: 'x'}], tools: [], signal: AbortSignal.timeout(10_000)})) {
        if (event.type === 'done') turn = event.turn;
      }
      return turn;
    };
    expect(await ask()).toMatchObject({text: 'fine without usage', error: null, usage: null});
    expect(server.requests.map(request => 'stream_options' in request.body)).toEqual([true, false]);
    await ask();
    expect(server.requests.map(request => 'stream_options' in request.body)).toEqual([true, false, false]);
  });

  it('abort mid-stream ends at once with the partial text and aborted set', async () => {
    const server = await serve([sse.slow(sse.text('a slow answer that takes a while to arrive', {chunkSize: 2}), 200)]);
    const controller = new AbortController();
    const provider = createProvider({baseURL: server.url, apiKey: KEY, model: 'm'});
    let turn: AssistantTurn | undefined;
    let abortedAt = 0;
    for await (const event of provider.stream({messages: [{type: 'user', content: 'x'}], tools: [], signal: controller.signal})) {
      if (event.type === 'text-delta' && abortedAt === 0) {
        abortedAt = Date.now();
        controller.abort();
      }
      if (event.type === 'done') turn = event.turn;
    }
    expect(Date.now() - abortedAt).toBeLessThan(1000);
    expect(turn).toMatchObject({error: 'aborted', aborted: true, text: 'a '});
  });

  it('abort during a retry wait stops without another request', async () => {
    const server = await serve([sse.rateLimited(30), sse.text('never')]);
    const controller = new AbortController();
    const provider = createProvider({baseURL: server.url, apiKey: KEY, model: 'm'});
    const events: ProviderEvent[] = [];
    for await (const event of provider.stream({messages: [{type: 'user', content: 'x'}], tools: [], signal: controller.signal})) {
      events.push(event);
      if (event.type === 'retry') controller.abort();
    }
    expect(server.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({type: 'done', turn: {aborted: true, error: 'aborted'}});
  });

  it('an already aborted signal makes no request', async () => {
    const server = await serve([sse.text('x')]);
    const {turn} = await run(server, {signal: AbortSignal.abort()});
    expect(server.requests).toHaveLength(0);
    expect(turn.aborted).toBe(true);
  });
});

describe('connectionFailure', () => {
  const failed = (code: string, message: string) => connectionFailure('https://llm.example.com/v1', Object.assign(new Error(message), {code}));

  it('a dropped or refused connection is retried; TLS refusals are not, and each says what to check', () => {
    expect(failed('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:443')).toEqual({message: 'cannot reach https://llm.example.com/v1 (connect ECONNREFUSED 10.0.0.1:443)', retryable: true});
    expect(failed('UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'unable to get local issuer certificate')).toMatchObject({retryable: false, message: expect.stringContaining("NODE_EXTRA_CA_CERTS=/path/to/ca.pem adds the authority that signed it; NODE_USE_SYSTEM_CA=1 trusts the system's store")});
    expect(failed('CERT_HAS_EXPIRED', 'certificate has expired')).toMatchObject({retryable: false, message: expect.stringContaining("check this machine's clock")});
    expect(failed('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames")).toMatchObject({retryable: false, message: expect.stringContaining('names another host')});
    expect(failed('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'certificate required')).toMatchObject({retryable: false, message: expect.not.stringContaining('NODE_EXTRA_CA_CERTS')});
  });
});

describe('an https:// base URL on a server that speaks plain http', () => {
  it('is one line saying so, not retried', async () => {
    const server = await serve([sse.text('never read')]);
    const url = server.url.replace('http://', 'https://');
    const result = await run(url);
    expect(result.turn.error).toMatch(new RegExp(`^cannot reach ${url.replace(/[.]/g, '\\.')} \\(.*\\): it does not speak TLS there: check whether the base URL should start with http://$`));
    expect(result.events.some(event => event.type === 'retry')).toBe(false);
  });
});

describe('retryAfter', () => {
  const headers = (entries: Record<string, string>) => new Headers(entries);
  it('reads seconds, milliseconds and HTTP dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfter(headers({'retry-after': '2'}), now)).toBe(2000);
    expect(retryAfter(headers({'retry-after': '0.5'}), now)).toBe(500);
    expect(retryAfter(headers({'retry-after-ms': '250', 'retry-after': '9'}), now)).toBe(250);
    expect(retryAfter(headers({'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT'}), now)).toBe(3000);
    expect(retryAfter(headers({'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT'}), now)).toBe(0);
    expect(retryAfter(headers({'retry-after': 'soon'}), now)).toBeUndefined();
    expect(retryAfter(headers({}), now)).toBeUndefined();
  });
});

describe('test server', () => {
  it('replays a raw body byte for byte in seeded random pieces', async () => {
    const body = 'data: {"choices":[{"index":0,"delta":{"content":"h\\u00e9llo ✓"}}]}\n\ndata: [DONE]\n\n';
    const server = await serve([sse.raw(body, {split: {type: 'random', min: 1, max: 3, seed: 9}})]);
    const response = await fetch(`${server.url}/chat/completions`, {method: 'POST', body: '{"messages":[]}'});
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe(body);
  });

  it('answers past the end of the script with a 400 naming the request', async () => {
    const server = await serve([]);
    const response = await fetch(`${server.url}/chat/completions`, {method: 'POST', body: '{}'});
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('no scripted response for request #1');
  });
});

describe('idle timeout bounds', () => {
  it('a huge idle timeout does not overflow into an instant one', async () => {
    const server = await serve([sse.slow(sse.text('patience', {chunkSize: 4}), 20)]);
    const {turn} = await run(server, {idleTimeoutMs: 30 * 24 * 3600 * 1000});
    expect(turn).toMatchObject({text: 'patience', error: null});
  });
});
