import {afterEach, describe, expect, test} from 'vitest';
import {SUMMARY_PREFIX, chooseCut, compactHistory} from '../../source/agent/compact.js';
import type {AgentEvent} from '../../source/core/events.js';
import {runAgent} from '../../source/agent/loop.js';
import {createToolRegistry, createReadLedger} from '../../source/tools/index.js';
import {ContextTracker, estimateTokens, shouldCompact} from '../../source/agent/context.js';
import {isContextLengthMessage as isContextLengthError} from '../../source/agent/provider/refusal.js';
import {toWire, unansweredToolCalls, type Message} from '../../source/core/messages.js';
import {createProvider} from '../../source/agent/provider/client.js';
import {startOpenAiServer, type OpenAiServer} from '../support/openai-server.js';
import {sse} from '../support/sse.js';

let server: OpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** 200 messages (plus the system prompt): 29 turns of user, two tool rounds (one with two parallel calls), answer. */
function longHistory(): Message[] {
  const history: Message[] = [{type: 'system', content: 'You are nib.'}];
  for (let turn = 0; history.length < 197; turn++) {
    history.push({type: 'user', content: `Turn ${turn}: please look at file ${turn}.`});
    history.push({type: 'assistant-tool-calls', toolCalls: [{id: `r${turn}`, name: 'read', arguments: `{"path":"f${turn}.ts"}`}]});
    history.push({type: 'tool-result', toolCallId: `r${turn}`, content: `line\n`.repeat(50)});
    history.push({
      type: 'assistant-tool-calls',
      content: 'Checking two more.',
      toolCalls: [
        {id: `a${turn}`, name: 'grep', arguments: '{"pattern":"x"}'},
        {id: `b${turn}`, name: 'list', arguments: '{}'},
      ],
    });
    history.push({type: 'tool-result', toolCallId: `a${turn}`, content: 'no matches'});
    history.push({type: 'tool-result', toolCallId: `b${turn}`, content: 'a\nb\n'});
    history.push({type: 'assistant-text', content: `Done with turn ${turn}.`});
  }
  history.push({type: 'user', content: 'Last turn.'});
  history.push({type: 'assistant-tool-calls', toolCalls: [{id: 'last', name: 'read', arguments: '{}'}]});
  history.push({type: 'tool-result', toolCallId: 'last', content: 'x'});
  history.push({type: 'assistant-text', content: 'All done.'});
  expect(history).toHaveLength(201);
  return history;
}

function provider(url: string) {
  return createProvider({baseURL: url, apiKey: 'sk-test-compact', model: 'nib-test-model', maxAttempts: 1});
}

/** The wire rule compaction must keep: each assistant tool_calls message followed by exactly its results. */
function assertPaired(history: readonly Message[]) {
  expect(unansweredToolCalls(history)).toEqual([]);
  const wire = history.map(toWire);
  for (let index = 0; index < wire.length; index++) {
    const message = wire[index]!;
    if (message.role === 'tool') {
      let back = index - 1;
      while (wire[back]?.role === 'tool') back--;
      const owner = wire[back];
      expect(owner?.role === 'assistant' && owner.tool_calls?.some(call => call.id === message.tool_call_id)).toBe(true);
    }
  }
}

describe('context', () => {
  test('estimate until usage, then usage plus what came after', () => {
    const history: Message[] = [{type: 'user', content: 'x'.repeat(400)}];
    expect(estimateTokens(history)).toBe(104);
    const tracker = new ContextTracker({window: null, compactAt: null});
    tracker.observe({type: 'usage', usage: {promptTokens: 5000, completionTokens: 10, totalTokens: 5010}}, 1);
    expect(tracker.tokens(history)).toBe(5000);
    expect(tracker.tokens([...history, {type: 'assistant-text', content: 'y'.repeat(40)}])).toBe(5014);
    expect(tracker.tokens([])).toBe(0); // compacted below the mark: estimate again
  });

  test('the tracker follows the history it is asked about: appended, shortened, then usage', () => {
    const tracker = new ContextTracker({window: 128_000, compactAt: null});
    const history: Message[] = [{type: 'user', content: 'x'.repeat(400)}];
    const one = tracker.tokens(history);
    expect(tracker.tokens(history)).toBe(one);
    history.push({type: 'assistant-text', content: 'y'.repeat(400)});
    const two = tracker.tokens(history);
    expect(two).toBeGreaterThan(one);
    history.splice(1);
    expect(tracker.tokens(history)).toBe(one);
    tracker.observe({type: 'usage', usage: {promptTokens: 5000, completionTokens: 1, totalTokens: 5001}}, history.length);
    expect(tracker.tokens(history)).toBe(5000);
  });

  test('the threshold compacts above its fraction, and can be off', () => {
    expect(shouldCompact(81, {window: 100, compactAt: 0.8})).toBe(true);
    expect(shouldCompact(80, {window: 100, compactAt: 0.8})).toBe(false);
    expect(shouldCompact(99, {window: 100, compactAt: null})).toBe(false);
  });

  test('context-length errors are recognised in the usual wordings', () => {
    for (const message of [
      "400 Bad Request from http://x/v1: This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      'context_length_exceeded',
      'the request exceeds the available context size, try increasing it',
      'prompt is too long: 210000 tokens > 200000 maximum',
    ]) expect(isContextLengthError(message)).toBe(true);
    expect(isContextLengthError('401 Unauthorized: check OPENAI_API_KEY')).toBe(false);
  });
});

describe('choosing the cut', () => {
  test('every possible keep size on 200 messages cuts at a message that is not a tool result', () => {
    const history = longHistory();
    for (let keep = 0; keep <= estimateTokens(history) + 10; keep += 97) {
      const cut = chooseCut(history, keep);
      expect(cut).not.toBeNull();
      expect(history[cut!]!.type).not.toBe('tool-result');
      assertPaired(history.slice(cut!));
      expect(unansweredToolCalls(history.slice(0, cut!))).toEqual([]);
    }
  });

  test('one long turn with no earlier user message is cut between rounds', () => {
    const history: Message[] = [{type: 'user', content: 'do it all'}];
    for (let round = 0; round < 20; round++) {
      history.push({type: 'assistant-tool-calls', toolCalls: [{id: `c${round}`, name: 'bash', arguments: '{}'}]});
      history.push({type: 'tool-result', toolCallId: `c${round}`, content: 'out '.repeat(100)});
    }
    const cut = chooseCut(history, 500);
    expect(cut).not.toBeNull();
    expect(history[cut!]!.type).toBe('assistant-tool-calls');
  });

  test('nothing to compact in a short conversation', () => {
    expect(chooseCut([{type: 'user', content: 'hi'}, {type: 'assistant-text', content: 'hello'}], 10)).toBeNull();
  });
});

describe('compactHistory', () => {
  test('200 messages: pairs kept, the summary request is what the server received', async () => {
    server = await startOpenAiServer([sse.text('They read files f0..f30 and found nothing.')]);
    const history = longHistory();
    const result = await compactHistory({provider: provider(server.url), history, keepTokens: 2_000, signal: new AbortController().signal});
    if (!result.ok) throw new Error(result.error.message);
    const {value} = result;

    assertPaired(value.history);
    expect(value.history[0]).toEqual({type: 'system', content: 'You are nib.'});
    expect(value.history.length).toBeLessThan(history.length);
    expect(value.summarised + value.kept + 1).toBe(history.length);
    const first = value.history[1]!;
    expect(first.type === 'user' && first.content.startsWith(`${SUMMARY_PREFIX}\n\nThey read files f0..f30`)).toBe(true);
    // The kept part is the original tail, byte for byte (its first prompt carries the summary).
    expect(value.history.slice(2)).toEqual(history.slice(-value.kept + 1));

    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0]!.body;
    expect(sent.tools ?? []).toEqual([]);
    expect(sent.messages).toHaveLength(2);
    expect(sent.messages[0]!.role).toBe('system');
    expect(sent.messages[0]!.content).toMatch(/summarise a coding session/);
    const transcript: string = sent.messages[1]!.content;
    expect(transcript).toContain('[user]\nTurn 0: please look at file 0.');
    expect(transcript).toContain('[assistant called read (r0)] {"path":"f0.ts"}');
    expect(transcript).toContain('[tool result (b0)]\na\nb');
    // Nothing that was kept verbatim is summarised too.
    const keptPrompt = history.slice(-value.kept).find(m => m.type === 'user');
    expect(keptPrompt && transcript.includes(keptPrompt.content)).toBe(false);
  });

  test('a provider failure leaves the history alone and says why', async () => {
    server = await startOpenAiServer([sse.serverError()]);
    const history = longHistory();
    const result = await compactHistory({provider: provider(server.url), history, keepTokens: 2_000, signal: new AbortController().signal});
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.code).toBe('provider');
    expect(history).toHaveLength(201);
  });
});

describe('compaction inside the loop', () => {
  const overflow = () =>
    sse.error(400, {error: {message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded'}});

  async function runTurn(script: Parameters<typeof startOpenAiServer>[0], options: {auto?: boolean} = {}) {
    server = await startOpenAiServer(script);
    const chat = provider(server.url);
    const history = longHistory();
    const tracker = new ContextTracker({window: 1_000_000, compactAt: options.auto ? 0.0001 : null});
    const events: AgentEvent[] = [];
    for await (const event of runAgent({
      provider: chat,
      tools: createToolRegistry([]),
      context: {root: '/', ledger: createReadLedger()},
      history,
      prompt: 'and now?',
      mode: () => 'ask',
      approve: async () => ({kind: 'yes'}),
      canAsk: false,
      alwaysAllowed: new Set(),
      compaction: {
        shouldCompact: current => tracker.shouldCompact(current),
        compact: (current, signal) => compactHistory({provider: chat, history: current, keepTokens: 300, signal}),
      },
      signal: new AbortController().signal,
    })) {
      tracker.observe(event, history.length);
      events.push(event);
    }
    return {events, history, requests: server.requests.map(r => r.body)};
  }

  test('a context-length error triggers one compaction and one retry', async () => {
    const {events, history, requests} = await runTurn([overflow(), sse.text('summary of it all'), sse.text('the answer')]);
    expect(requests).toHaveLength(3);
    expect(requests[1]!.messages[1]!.content).toMatch(/^Summarise this conversation/);
    const retried = requests[2]!.messages;
    expect(retried.length).toBeLessThan(requests[0]!.messages.length);
    expect(retried.some(m => m.role === 'user' && String(m.content).includes('summary of it all'))).toBe(true);
    expect(retried.at(-1)).toEqual({role: 'user', content: 'and now?'});
    const compaction = events.find(e => e.type === 'compaction');
    expect(compaction && compaction.type === 'compaction' && compaction.reason).toBe('overflow');
    expect(events.at(-1)).toMatchObject({type: 'turn-end', reason: 'completed'});
    expect(history.at(-1)).toEqual({type: 'assistant-text', content: 'the answer'});
    assertPaired(history);
  });

  test('the same error inside a 200 stream compacts the same way', async () => {
    const inStream = sse.chunks([{error: {message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded'}}]);
    const {events, requests} = await runTurn([inStream, sse.text('summary of it all'), sse.text('the answer')]);
    expect(requests).toHaveLength(3);
    expect(events.some(e => e.type === 'retry')).toBe(false);
    expect(events.find(e => e.type === 'compaction')).toMatchObject({reason: 'overflow'});
    expect(events.at(-1)).toMatchObject({type: 'turn-end', reason: 'completed'});
  });

  test('a second context-length error ends the turn instead of looping', async () => {
    const {events, requests} = await runTurn([overflow(), sse.text('summary'), overflow(), sse.text('never asked for')]);
    expect(requests).toHaveLength(3);
    expect(events.filter(e => e.type === 'compaction')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({type: 'turn-end', reason: 'error'});
  });

  test('past the threshold the loop compacts before the request', async () => {
    const {events, requests} = await runTurn([sse.text('auto summary'), sse.text('answer')], {auto: true});
    expect(requests).toHaveLength(2);
    expect(requests[0]!.messages[1]!.content).toMatch(/^Summarise this conversation/);
    expect(requests[1]!.messages.some(m => String(m.content).includes('auto summary'))).toBe(true);
    expect(events.find(e => e.type === 'compaction')).toMatchObject({reason: 'auto'});
  });
});
