import {mkdtemp, realpath, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, describe, expect, test} from 'vitest';
import {compactHistory, SUMMARY_SYSTEM} from '../../source/agent/compact.js';
import {estimateTokens} from '../../source/agent/context.js';
import {runAgent} from '../../source/agent/loop.js';
import {createProvider} from '../../source/agent/provider/client.js';
import {PROBE_WAIT_MS, SessionWindow} from '../../source/agent/session/window.js';
import {createToolRegistry, createReadLedger, readTool} from '../../source/tools/index.js';
import type {AgentEvent} from '../../source/core/events.js';
import type {Message} from '../../source/core/messages.js';
import {startOpenAiServer, type OpenAiServer, type RecordedRequest} from '../support/openai-server.js';
import type {Persona} from '../support/server-persona.js';
import {sse} from '../support/sse.js';

let server: OpenAiServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) await rm(dir, {recursive: true, force: true});
  dir = undefined;
});

const SYSTEM = `You are nib, a coding agent. ${'Work carefully and say what you did. '.repeat(30)}`;
const tools = createToolRegistry([readTool]);

const isSummary = (request: RecordedRequest) => request.body.messages[0]?.content === SUMMARY_SYSTEM;

type Usage = {prompt_tokens: number; completion_tokens: number; total_tokens: number};

/** Answers like a model: a summary when asked for one, else `answer`; usage is the server's own count. */
function model(answer: (usage: Usage, request: RecordedRequest) => ReturnType<typeof sse.text>) {
  return (request: RecordedRequest) => {
    const usage = {prompt_tokens: request.promptTokens ?? 10, completion_tokens: 50, total_tokens: (request.promptTokens ?? 10) + 50};
    if (isSummary(request)) return sse.text('The user and the agent talked about numbers; nothing is open.', {usage});
    return answer(usage, request);
  };
}

/** `probe`: asked and awaited (default), not asked (false), or asked and left to the turn to wait for, as print mode does. */
async function session(persona: Persona, script: Parameters<typeof startOpenAiServer>[0], options: {probe?: boolean | 'print'; compactAt?: number | null} = {}) {
  server = await startOpenAiServer(script, {persona});
  dir = await realpath(await mkdtemp(join(tmpdir(), 'nib-fit-')));
  const provider = createProvider({baseURL: server.url, apiKey: 'sk-test', model: 'nib-test-model', maxAttempts: 1});
  const window = new SessionWindow({configured: null, compactAt: options.compactAt === undefined ? 0.8 : options.compactAt});
  window.setTools(tools.definitions({mode: 'ask'}));
  const history: Message[] = [{type: 'system', content: SYSTEM}];
  if (options.probe === 'print') {
    window.waitBeforeChecks(PROBE_WAIT_MS);
    void window.probe({baseURL: server.url, model: 'nib-test-model'}, history);
  } else if (options.probe !== false) await window.probe({baseURL: server.url, model: 'nib-test-model'}, history);
  const compaction = window.compaction(() => provider);
  const root = dir;
  async function turn(prompt: string, seen?: (event: AgentEvent) => void) {
    const events: AgentEvent[] = [];
    for await (const event of runAgent({
      provider, tools, context: {root, ledger: createReadLedger()}, history, prompt,
      mode: () => 'yolo', approve: async () => ({kind: 'yes'}), canAsk: false, alwaysAllowed: new Set(), compaction,
      signal: new AbortController().signal,
    })) {
      window.tracker.observe(event, history.length, history);
      seen?.(event);
      events.push(event);
    }
    return events;
  }
  return {window, history, turn, root};
}

const errors = (events: AgentEvent[]) => events.flatMap(event => (event.type === 'error' ? [event.message] : []));

describe('never wedge', () => {
  test('a prompt too long for the window even alone is refused before sending, with the sizes and the fix; the next prompt works', async () => {
    const s = await session({kind: 'llama.cpp', window: 4096}, model(usage => sse.text('hi there', {usage})));
    expect(s.window.window).toBe(4096);
    const events = await s.turn('word '.repeat(6400));
    expect(server!.requests).toHaveLength(0);
    expect(errors(events)).toHaveLength(1);
    expect(errors(events)[0]).toMatch(/^Not sent: this prompt is about 8k tokens; the server's window is 4,096, and the system prompt and tools take [\d.]+k? of it.*--ctx-size/);
    expect(events.some(event => event.type === 'message')).toBe(false);
    expect(s.history).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({type: 'turn-end', reason: 'error'});

    const next = await s.turn('say hi');
    expect(next.at(-1)).toMatchObject({type: 'turn-end', reason: 'completed'});
    expect(server!.requests.every(request => !request.overWindow)).toBe(true);
    // From then on the system prompt and tools are what the server counted, not a guess.
    const counted = server!.requests[0]!.promptTokens!;
    expect(s.window.tracker.fixedTokens(s.history)).toBe(counted - estimateTokens([{type: 'user', content: 'say hi'}]));
  });

  test("print mode: the turn starts before the server has said its window, and the check before sending waits for it", async () => {
    const s = await session({kind: 'llama.cpp', window: 4096}, [sse.text('never asked')], {probe: 'print'});
    let windowAtStart: number | null | undefined;
    const events = await s.turn('word '.repeat(6400), event => {
      if (event.type === 'turn-start') windowAtStart = s.window.window;
    });
    expect(windowAtStart).toBeNull();
    expect(server!.requests).toHaveLength(0);
    expect(errors(events)[0]).toMatch(/^Not sent: this prompt is about 8k tokens; the server's window is 4,096/);
  });

  test('with the window still unknown, the server\'s refusal sets it: the prompt is taken back and the refusal with sizes comes first', async () => {
    const s = await session({kind: 'llama.cpp', window: 4096}, model(usage => sse.text('hi there', {usage})), {probe: false});
    expect(s.window.window).toBeNull();
    const events = await s.turn('word '.repeat(6400));
    expect(server!.requests).toHaveLength(1);
    expect(s.window.window).toBe(4096);
    // Scaled by the server's own count in its refusal (it counts 3.5 characters a token).
    expect(errors(events)[0]).toMatch(/^Refused by the server, and taken back: this prompt is about 9.2k tokens; the server's window is 4,096/);
    expect(errors(events).join('\n')).not.toMatch(/Nothing to compact/);
    expect(events.some(event => event.type === 'message')).toBe(false);
    expect(s.history).toHaveLength(1);
    expect((await s.turn('say hi')).at(-1)).toMatchObject({type: 'turn-end', reason: 'completed'});
  });

  test('vLLM: the fix names --max-model-len', async () => {
    const s = await session({kind: 'vllm', window: 2048}, model(usage => sse.text('ok', {usage})));
    expect(errors(await s.turn('x'.repeat(12_000)))[0]).toMatch(/window is 2,048.*--max-model-len/);
  });
});

describe('fit before sending', () => {
  test('Ollama answers whatever the size: a conversation that grows past the window is compacted before any request would overflow (automatic compaction off, so only the fit check stands between)', async () => {
    const s = await session({kind: 'ollama', window: 4096, models: ['nib-test-model']}, model(usage => sse.text(`Noted. ${'The figures add up as expected. '.repeat(30)}`, {usage})), {compactAt: null});
    for (let step = 1; step <= 12; step++) {
      const events = await s.turn(`Step ${step}: ${'please keep these numbers in mind 12345 67890 '.repeat(12)}`);
      expect(events.at(-1)).toMatchObject({type: 'turn-end', reason: 'completed'});
    }
    const over = server!.requests.filter(request => request.overWindow);
    expect(over).toEqual([]);
    expect(server!.requests.filter(isSummary).length).toBeGreaterThan(0);
    expect(Math.max(...server!.requests.map(request => request.promptTokens!))).toBeGreaterThan(2000);
  });

  test('large tool outputs of earlier turns are shortened first, before anything is summarised', async () => {
    let call = 0;
    const s = await session({kind: 'llama.cpp', window: 8192}, model(usage => {
      call++;
      if (call === 1) return sse.toolCall('read', {path: 'big.txt'}, {usage});
      return sse.text('done', {usage});
    }));
    await writeFile(join(s.root, 'big.txt'), `${'a line of the big file with some words in it\n'.repeat(500)}`);
    const first = await s.turn('read big.txt');
    expect(first.at(-1)).toMatchObject({type: 'turn-end'});
    const second = await s.turn('thanks, now something else');
    expect(second.at(-1)).toMatchObject({type: 'turn-end', reason: 'completed'});
    expect(server!.requests.filter(isSummary)).toHaveLength(0);
    expect(server!.requests.every(request => !request.overWindow)).toBe(true);
    const compaction = [...first, ...second].find(event => event.type === 'compaction');
    expect(compaction).toMatchObject({shortened: 1, summarised: 0});
    // Announced as it starts, so the screen can say what the wait is.
    const types = [...first, ...second].map(event => event.type);
    expect(types.indexOf('compaction-start')).toBeGreaterThan(-1);
    expect(types.indexOf('compaction-start')).toBeLessThan(types.indexOf('compaction'));
    const sent = server!.requests.at(-1)!.body.messages.find(message => message.role === 'tool');
    expect(sent?.content).toMatch(/shortened by nib to fit/);
  });

  test('the summary request fits too: a long transcript is summarised in parts, each given the summary so far', async () => {
    server = await startOpenAiServer((request, index) => sse.text(`summary ${index + 1}`));
    const provider = createProvider({baseURL: server.url, apiKey: 'sk-test', model: 'm', maxAttempts: 1});
    const history: Message[] = [{type: 'system', content: 'sys'}];
    for (let i = 0; i < 20; i++) history.push({type: 'user', content: `question ${i} ${'q'.repeat(900)}`}, {type: 'assistant-text', content: `answer ${i} ${'a'.repeat(900)}`});
    const result = await compactHistory({provider, history, keepTokens: 300, transcriptMaxChars: 6_000, signal: new AbortController().signal});
    expect(result.ok).toBe(true);
    const requests = server.requests.map(request => request.body.messages[1]!.content as string);
    expect(requests.length).toBeGreaterThan(3);
    expect(requests.every(content => content.length < 6_000 + 600)).toBe(true);
    expect(requests[1]).toContain('<summary>\nsummary 1\n</summary>');
    expect(result.ok && result.value.summary).toBe(`summary ${requests.length}`);
  });
});

describe('what the window says at start', () => {
  test('a window where nib takes over a third says so once, with numbers', async () => {
    const s = await session({kind: 'llama.cpp', window: 1400}, []);
    const notices = s.window.takeNotices();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/window is small: 1,400 tokens, and nib's system prompt and tools take about [\d.]+k? of it \(\d+%\).*--ctx-size/);
    expect(s.window.takeNotices()).toEqual([]);
  });

  test('an Ollama window too small to work in names OLLAMA_CONTEXT_LENGTH and num_ctx', async () => {
    const s = await session({kind: 'ollama', window: 2048, models: ['nib-test-model']}, []);
    expect(s.window.takeNotices()[0]).toMatch(/Ollama runs nib-test-model with a window of 2,048 tokens.*OLLAMA_CONTEXT_LENGTH=32768 ollama serve.*PARAMETER num_ctx/);
  });

  test('/context: where the window goes; unknown says so, with no percentage', async () => {
    const s = await session({kind: 'llama.cpp', window: 16384}, []);
    const text = s.window.describe(s.history);
    expect(text).toMatch(/^Context window: 16,384 tokens \(llama.cpp \/v1\/models\)/);
    expect(text).toMatch(/system prompt and tools +~[\d.]+k? +\d+%/);
    expect(text).toMatch(/room left/);
    const unknown = new SessionWindow({configured: null, compactAt: 0.8});
    expect(unknown.describe(s.history)).toMatch(/^Context window: unknown/);
    expect(unknown.describe(s.history)).not.toMatch(/%/);
  });
});
