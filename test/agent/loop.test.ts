import {mkdtemp, realpath, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {z} from 'zod';
import type {ApprovalMode} from '../../source/core/approval-mode.js';
import type {AgentEvent, ApprovalRequest, Decision} from '../../source/core/events.js';
import {runAgent, type RunAgentOptions} from '../../source/agent/loop.js';
import {toWire, type Message} from '../../source/core/messages.js';
import {createProvider} from '../../source/agent/provider/client.js';
import {createToolRegistry, createReadLedger, readTool} from '../../source/tools/index.js';
import {defineTool, type ToolContext} from '../../source/core/tool.js';
import {startOpenAiServer, type OpenAiServer, type RecordedBody, type Script} from '../support/openai-server.js';
import {sse} from '../support/sse.js';
import type {Persona} from '../support/server-persona.js';

/**
 * Test tools: real tools through the real registry, small enough that the test sees what ran.
 * `note` is a write tool (asks in ask mode), `wait` an exec tool that runs until aborted.
 */
function testTools(ran: string[]) {
  const note = defineTool({
    name: 'note',
    kind: 'write',
    description: 'Write a note.',
    schema: z.object({text: z.string()}),
    keyArg: ({text}) => text,
    isOutside: async () => false,
    preview: async ({text}) => ({title: `note ${text}`, outside: false, editable: `${text}\n`}),
    run: async ({text}) => {
      ran.push(text);
      return {content: `noted: ${text}`, isError: false};
    },
    runEdited: async (_args, text) => {
      ran.push(text.trimEnd());
      return {content: `noted: ${text.trimEnd()}`, isError: false};
    },
  });
  const wait = defineTool({
    name: 'wait',
    kind: 'exec',
    description: 'Wait until interrupted, printing a line first.',
    schema: z.object({}),
    keyArg: () => '',
    isOutside: async () => false,
    preview: async () => ({title: 'wait', outside: false, command: {command: 'wait', cwd: '.'}}),
    run: (_args, ctx, signal) =>
      new Promise(resolve => {
        ctx.onOutput?.('waiting\n');
        ran.push('wait');
        signal.addEventListener('abort', () => resolve({content: 'stopped', isError: true}), {once: true});
      }),
  });
  const boom = defineTool({
    name: 'boom',
    kind: 'read',
    description: 'Always throws (a bug in a tool).',
    schema: z.object({}),
    keyArg: () => '',
    isOutside: async () => false,
    preview: async () => ({title: 'boom', outside: false}),
    run: async () => {
      throw new Error('kaboom');
    },
  });
  // A write tool whose outside check throws (a bug): the loop must not take that for "inside".
  const shaky = defineTool({
    name: 'shaky',
    kind: 'write',
    description: 'A write whose outside check fails.',
    schema: z.object({}),
    keyArg: () => '',
    isOutside: async () => {
      throw new Error('cannot tell');
    },
    preview: async () => ({title: 'shaky', outside: true}),
    run: async () => {
      ran.push('shaky');
      return {content: 'wrote', isError: false};
    },
  });
  return createToolRegistry([readTool, note, wait, boom, shaky]);
}

let server: OpenAiServer | undefined;
let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'nib-loop-')));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, {recursive: true, force: true});
});

type Run = {
  events: AgentEvent[];
  history: Message[];
  ran: string[];
  requests: () => RecordedBody[];
  asked: ApprovalRequest[];
};

async function run(
  script: Script,
  options: Partial<Omit<RunAgentOptions, 'approve'>> & {
    approve?: (request: ApprovalRequest) => Decision | Promise<Decision>;
    modeValue?: ApprovalMode;
    onEvent?: (event: AgentEvent) => void;
    persona?: Persona;
  } = {},
): Promise<Run> {
  server = await startOpenAiServer(script, options.persona ? {persona: options.persona} : {});
  const ran: string[] = [];
  const asked: ApprovalRequest[] = [];
  const history: Message[] = options.history ?? [{type: 'system', content: 'test system prompt'}];
  const context: ToolContext = {root: dir, ledger: createReadLedger()};
  const events: AgentEvent[] = [];
  for await (const event of runAgent({
    provider: createProvider({baseURL: server.url, apiKey: 'test-key', model: 'test-model', idleTimeoutMs: 5000}),
    tools: testTools(ran),
    context,
    history,
    prompt: options.prompt ?? 'do it',
    mode: () => options.modeValue ?? 'ask',
    approve: async request => {
      asked.push(request);
      return (await options.approve?.(request)) ?? {kind: 'yes'};
    },
    canAsk: options.canAsk ?? true,
    alwaysAllowed: options.alwaysAllowed ?? new Set(),
    signal: options.signal ?? new AbortController().signal,
    ...(options.maxRounds ? {maxRounds: options.maxRounds} : {}),
    ...(options.undoPoint ? {undoPoint: options.undoPoint} : {}),
    ...(options.compaction ? {compaction: options.compaction} : {}),
  })) {
    events.push(event);
    options.onEvent?.(event);
  }
  const current = server;
  return {events, history, ran, asked, requests: () => current.requests.map(r => r.body)};
}

const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, {type: T}> => e.type === type);

/** What the API demands of a request: every assistant tool call answered by a tool message before the next turn. */
function expectValidWire(messages: RecordedBody['messages']) {
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === 'tool') {
      expect(open.has(message.tool_call_id)).toBe(true);
      open.delete(message.tool_call_id);
    } else {
      expect([...open]).toEqual([]);
      for (const call of message.tool_calls ?? []) open.add(call.id);
    }
  }
  expect([...open]).toEqual([]);
}

describe('runAgent', () => {
  test('reads a file, sends the numbered lines back with the matching id, then answers', async () => {
    await writeFile(join(dir, 'a.txt'), 'alpha\nbeta\n');
    const result = await run([sse.toolCall('read', {path: 'a.txt'}, {id: 'call_1'}), sse.text('It says alpha.')]);

    expect(ofType(result.events, 'turn-end')).toMatchObject([{reason: 'completed'}]);
    expect(ofType(result.events, 'text-delta').map(e => e.text).join('')).toBe('It says alpha.');
    const second = result.requests()[1]!;
    const toolMessage = second.messages.at(-1)!;
    expect(toolMessage).toMatchObject({role: 'tool', tool_call_id: 'call_1'});
    expect(toolMessage.content).toMatch(/1.*alpha/);
    expect(toolMessage.content).toMatch(/2.*beta/);
    expect(result.asked).toEqual([]);
    // Every appended message was announced, in order, so a session log can mirror the history.
    expect(ofType(result.events, 'message').map(e => e.message)).toEqual(result.history.slice(1));
    expect(result.history.map(m => m.type)).toEqual(['system', 'user', 'assistant-tool-calls', 'tool-result', 'assistant-text']);
  });

  test('the undo point is taken by the first call that can change a file, once allowed, and waits for it before it runs', async () => {
    const order: string[] = [];
    let taken = 0;
    let requestsWhenRecorded = -1;
    let point: Promise<void> | undefined;
    // A read call, then two writes in one response: the read neither takes nor waits for the point.
    const {ran} = await run([sse.toolCalls([{name: 'boom', arguments: {}}, {name: 'note', arguments: {text: 'x'}}, {name: 'note', arguments: {text: 'y'}}]), sse.text('done')], {
      undoPoint: () =>
        (point ??= new Promise<void>(resolve => {
          taken++;
          order.push('taking');
          setTimeout(() => {
            requestsWhenRecorded = server!.requests.length;
            order.push('undo point');
            resolve();
          }, 100);
        })),
      onEvent: event => {
        if (event.type === 'tool-result') order.push(`result ${event.name}`);
      },
      approve: request => {
        order.push(`asked ${(request.args as {text: string}).text}`);
        return {kind: 'yes'};
      },
    });
    expect(requestsWhenRecorded).toBe(1);
    expect(taken).toBe(1);
    expect(order).toEqual(['result boom', 'asked x', 'taking', 'undo point', 'result note', 'asked y', 'result note']);
    expect(ran).toEqual(['x', 'y']);
  });

  test('a turn that only answers, only reads, or whose write is declined or refused takes no undo point', async () => {
    let taken = 0;
    const undoPoint = async () => void taken++;
    await run([sse.text('just words')], {undoPoint});
    await run([sse.toolCall('boom', {}), sse.text('done')], {undoPoint});
    await run([sse.toolCall('note', {text: 'x'}), sse.text('ok')], {undoPoint, approve: () => ({kind: 'no'})});
    const refused = await run([sse.toolCall('note', {text: 'x'}), sse.text('ok')], {undoPoint, modeValue: 'plan'});
    expect(refused.ran).toEqual([]);
    expect(taken).toBe(0);
  });

  test('a call stopped as it was approved takes no undo point', async () => {
    const stop = new AbortController();
    let taken = 0;
    const {ran} = await run([sse.toolCall('note', {text: 'x'})], {
      undoPoint: async () => void taken++,
      signal: stop.signal,
      onEvent: event => {
        if (event.type === 'approval-decision') stop.abort();
      },
    });
    expect([ran, taken]).toEqual([[], 0]);
  });

  test('a call waiting for the undo point is answered as interrupted when the turn is stopped', async () => {
    const stop = new AbortController();
    const {ran, history} = await run([sse.toolCall('note', {text: 'x'})], {
      undoPoint: () => new Promise<void>(() => {}),
      signal: stop.signal,
      onEvent: event => {
        if (event.type === 'tool-call') setTimeout(() => stop.abort(), 50);
      },
    });
    expect(ran).toEqual([]);
    expect(history.at(-1)).toMatchObject({type: 'tool-result', isError: true, content: expect.stringContaining('Interrupted')});
  });

  test('yes: the call is previewed, approved and run', async () => {
    const result = await run([sse.toolCall('note', {text: 'hi'}, {id: 'c1'}), sse.text('done')]);
    expect(result.asked).toMatchObject([{id: 'c1', name: 'note', args: {text: 'hi'}, preview: {title: 'note hi'}}]);
    expect(result.ran).toEqual(['hi']);
    expect(ofType(result.events, 'approval-decision')).toMatchObject([{id: 'c1', decision: {kind: 'yes'}}]);
    const types = result.events.map(e => e.type).filter(t => t.startsWith('approval') || t.startsWith('tool-'));
    expect(types).toEqual(['tool-call', 'approval-request', 'approval-decision', 'tool-start', 'tool-result']);
  });

  test('no with a reason: nothing runs and the model hears why', async () => {
    const result = await run([sse.toolCall('note', {text: 'hi'}, {id: 'c1'}), sse.text('ok')], {
      approve: () => ({kind: 'no', feedback: 'not in this file'}),
    });
    expect(result.ran).toEqual([]);
    const tool = result.requests()[1]!.messages.at(-1)!;
    expect(tool.tool_call_id).toBe('c1');
    expect(tool.content).toContain('declined');
    expect(tool.content).toContain('not in this file');
    expect(ofType(result.events, 'tool-result')).toMatchObject([{isError: true}]);
  });

  test('edit: the edited version runs and the model gets a diff of the change and the note', async () => {
    const result = await run([sse.toolCall('note', {text: 'hi'}, {id: 'c1'}), sse.text('ok')], {
      approve: () => ({kind: 'edit', text: 'hello\n', note: 'friendlier'}),
    });
    expect(result.ran).toEqual(['hello']);
    const content: string = result.requests()[1]!.messages.at(-1)!.content;
    expect(content).toContain('edited your proposal');
    expect(content).toContain('-hi');
    expect(content).toContain('+hello');
    expect(content).toContain('friendlier');
    expect(content).toContain('noted: hello');
  });

  test('always: the tool stops asking for the rest of the session', async () => {
    const alwaysAllowed = new Set<string>();
    const result = await run(
      [
        sse.toolCalls([
          {name: 'note', arguments: {text: 'one'}},
          {name: 'note', arguments: {text: 'two'}},
        ]),
        sse.text('ok'),
      ],
      {approve: () => ({kind: 'always'}), alwaysAllowed},
    );
    expect(result.asked).toHaveLength(1);
    expect(result.ran).toEqual(['one', 'two']);
    expect([...alwaysAllowed]).toEqual(['note']);
  });

  test('unknown tools, invalid JSON and schema failures become explanatory results; the run finishes', async () => {
    const result = await run([
      sse.toolCalls([
        {name: 'frobnicate', arguments: {}, id: 'u1'},
        {name: 'read', arguments: '{"path": "a.txt"', id: 'j1'},
        {name: 'read', arguments: {path: 42}, id: 'z1'},
      ]),
      sse.text('sorry'),
    ]);
    expect(ofType(result.events, 'turn-end')).toMatchObject([{reason: 'completed'}]);
    const tools = result.requests()[1]!.messages.filter(m => m.role === 'tool');
    expect(tools.map(m => m.tool_call_id)).toEqual(['u1', 'j1', 'z1']);
    expect(tools[0]!.content).toMatch(/no tool named "frobnicate".*read, note, wait, boom/);
    expect(tools[1]!.content).toMatch(/not valid JSON/);
    expect(tools[2]!.content).toMatch(/path/);
  });

  test('a tool that throws becomes an error result; the turn goes on', async () => {
    const result = await run([sse.toolCall('boom', {}, {id: 'b1'}), sse.text('recovered')]);
    expect(ofType(result.events, 'tool-result')).toMatchObject([{id: 'b1', isError: true, content: expect.stringMatching(/boom failed unexpectedly: kaboom/)}]);
    expect(ofType(result.events, 'turn-end')).toMatchObject([{reason: 'completed'}]);
  });

  test('the approval mode is read per call, so a switch mid-turn applies to the next call', async () => {
    let mode: ApprovalMode = 'ask';
    server = await startOpenAiServer([
      sse.toolCalls([
        {name: 'note', arguments: {text: 'asked'}},
        {name: 'note', arguments: {text: 'not asked'}},
      ]),
      sse.text('ok'),
    ]);
    const ran: string[] = [];
    const asked: string[] = [];
    for await (const _event of runAgent({
      provider: createProvider({baseURL: server.url, apiKey: 'k', model: 'm'}),
      tools: testTools(ran),
      context: {root: dir, ledger: createReadLedger()},
      history: [{type: 'system', content: 's'}],
      prompt: 'go',
      mode: () => mode,
      approve: async request => {
        asked.push(request.id);
        mode = 'yolo';
        return {kind: 'yes'};
      },
      canAsk: true,
      alwaysAllowed: new Set(),
      signal: new AbortController().signal,
    })) {
      // drained for its side effects
    }
    expect(asked).toHaveLength(1);
    expect(ran).toEqual(['asked', 'not asked']);
  });

  test('a refusal is shown and kept like an answer', async () => {
    const result = await run([
      sse.chunks([
        {choices: [{index: 0, delta: {role: 'assistant', refusal: 'I cannot help with that.'}, finish_reason: null}]},
        {choices: [{index: 0, delta: {}, finish_reason: 'stop'}]},
      ]),
    ]);
    expect(ofType(result.events, 'text-delta').map(e => e.text).join('')).toBe('I cannot help with that.');
    expect(result.history.at(-1)).toMatchObject({type: 'assistant-text', content: 'I cannot help with that.'});
  });

  test('stops at the round cap with a reason and a valid history', async () => {
    const result = await run(() => sse.toolCall('read', {path: '.'}), {maxRounds: 3});
    expect(result.requests()).toHaveLength(3);
    expect(ofType(result.events, 'error')).toMatchObject([{code: 'max-rounds', message: expect.stringContaining('3')}]);
    expect(ofType(result.events, 'turn-end')).toMatchObject([{reason: 'max-rounds'}]);
    expect(result.history.at(-1)?.type).toBe('tool-result');
  });

  test('the same call three times in a row, print mode: the turn stops with code loop and a valid history', async () => {
    await writeFile(join(dir, 'a.txt'), 'alpha\n');
    const same = () => sse.toolCalls([{name: 'read', arguments: {path: 'a.txt'}}, {name: 'read', arguments: {path: 'b.txt'}}]);
    const result = await run([sse.toolCall('read', {path: 'a.txt'}), sse.toolCall('read', {path: 'a.txt'}), same(), sse.text('unused')], {canAsk: false});
    expect(result.requests()).toHaveLength(3);
    expect(ofType(result.events, 'error')).toMatchObject([{code: 'loop', message: expect.stringContaining('read with the same arguments 3 times in a row')}]);
    expect(ofType(result.events, 'turn-end')).toMatchObject([{reason: 'error'}]);
    // Two runs of the call, then the third and the rest of its round answered, not run.
    const results = ofType(result.events, 'tool-result');
    expect(results.map(event => event.isError)).toEqual([false, false, true, true]);
    expect(results.at(-1)!.content).toContain('same call was made again and again');
    expectValidWire(result.history.map(toWire) as RecordedBody['messages']);
  });

  test('the same call three times in a row, with a person: asked once; yes goes on, no stops', async () => {
    const loopCalls = () => [sse.toolCall('note', {text: 'x'}), sse.toolCall('note', {text: 'x'}), sse.toolCall('note', {text: 'x'})];
    const goOn = await run([...loopCalls(), sse.text('done')], {modeValue: 'yolo'});
    const questions = goOn.asked.filter(request => request.loop);
    expect(questions).toMatchObject([{name: 'note', loop: {repeats: 3}, preview: {title: 'note {"text":"x"}'}}]);
    expect(goOn.ran).toEqual(['x', 'x', 'x']);
    expect(ofType(goOn.events, 'turn-end')).toMatchObject([{reason: 'completed'}]);
    await server?.close();

    const stop = await run([...loopCalls(), sse.text('unused')], {modeValue: 'yolo', approve: request => (request.loop ? {kind: 'no'} : {kind: 'yes'})});
    expect(stop.ran).toEqual(['x', 'x']);
    expect(ofType(stop.events, 'error')).toMatchObject([{code: 'loop'}]);
    expect(ofType(stop.events, 'turn-end')).toMatchObject([{reason: 'error'}]);
    expect(stop.requests()).toHaveLength(3);
    expect(stop.history.at(-1)).toMatchObject({type: 'tool-result', isError: true});
  });

  test('different arguments, or another call in between, are not a loop', async () => {
    const script = [
      sse.toolCall('read', {path: 'a.txt'}),
      sse.toolCall('read', {path: 'a.txt'}),
      sse.toolCall('read', {path: 'b.txt'}),
      sse.toolCall('read', {path: 'a.txt'}),
      sse.toolCall('read', {path: 'a.txt'}),
      sse.text('done'),
    ];
    const result = await run(script, {canAsk: false});
    expect(ofType(result.events, 'error')).toEqual([]);
    expect(ofType(result.events, 'turn-end')).toMatchObject([{reason: 'completed'}]);
  });

  test('print mode (canAsk false): writes are refused with a message, reads run', async () => {
    await writeFile(join(dir, 'a.txt'), 'alpha\n');
    const result = await run(
      [
        sse.toolCalls([
          {name: 'read', arguments: {path: 'a.txt'}},
          {name: 'note', arguments: {text: 'x'}},
        ]),
        sse.text('ok'),
      ],
      {canAsk: false},
    );
    expect(result.asked).toEqual([]);
    expect(result.ran).toEqual([]);
    const tools = result.requests()[1]!.messages.filter(m => m.role === 'tool');
    expect(tools[0]!.content).toContain('alpha');
    expect(tools[1]!.content).toMatch(/not run.*--approval-mode auto-edit/);
  });

  test('a tool whose outside check throws is treated as outside: yolo still asks, print mode refuses', async () => {
    const asked = await run([sse.toolCall('shaky', {}), sse.text('ok')], {modeValue: 'yolo', approve: () => ({kind: 'no'})});
    expect(asked.asked.map(request => request.name)).toEqual(['shaky']);
    expect(asked.ran).toEqual([]);
    const refused = await run([sse.toolCall('shaky', {}), sse.text('ok')], {modeValue: 'yolo', canAsk: false});
    expect(refused.ran).toEqual([]);
    expect(refused.requests()[1]!.messages.at(-1)!.content).toMatch(/outside the workspace/);
  });

  test('plan mode offers read tools only and refuses the others', async () => {
    const result = await run([sse.toolCall('note', {text: 'x'}), sse.text('plan')], {modeValue: 'plan'});
    expect(result.requests()[0]!.tools?.map(t => t.function.name)).toEqual(['read', 'boom']);
    expect(result.ran).toEqual([]);
    expect(result.requests()[1]!.messages.at(-1)!.content).toMatch(/plan mode/);
  });

  test('abort while an approval waits: every call is answered and the next request is valid', async () => {
    const controller = new AbortController();
    const history: Message[] = [{type: 'system', content: 's'}];
    const first = await run(
      [
        sse.toolCalls([
          {name: 'note', arguments: {text: 'a'}},
          {name: 'note', arguments: {text: 'b'}},
        ]),
      ],
      {
        history,
        signal: controller.signal,
        approve: () => {
          controller.abort();
          return new Promise<Decision>(() => {});
        },
      },
    );
    expect(ofType(first.events, 'turn-end')).toMatchObject([{reason: 'aborted'}]);
    expect(first.ran).toEqual([]);
    const results = ofType(first.events, 'tool-result');
    expect(results).toHaveLength(2);
    for (const result of results) expect(result.content).toMatch(/interrupted by the user/i);

    await server!.close();
    const next = await run([sse.text('fine')], {history, prompt: 'again'});
    expect(ofType(next.events, 'turn-end')).toMatchObject([{reason: 'completed'}]);
    expectValidWire(next.requests()[0]!.messages);
  });

  test('abort while a tool runs: the tool sees the signal, its output streamed, the turn ends aborted', async () => {
    const controller = new AbortController();
    const result = await run([sse.toolCall('wait', {})], {
      modeValue: 'yolo',
      signal: controller.signal,
      onEvent: event => {
        if (event.type === 'tool-output') controller.abort();
      },
    });
    expect(result.ran).toEqual(['wait']);
    expect(ofType(result.events, 'tool-output')).toMatchObject([{chunk: 'waiting\n'}]);
    expect(ofType(result.events, 'tool-result')).toMatchObject([{isError: true, content: expect.stringMatching(/interrupted/i)}]);
    expect(ofType(result.events, 'turn-end')).toMatchObject([{reason: 'aborted'}]);
  });

  test('finish_reason "length" or "content_filter": the partial text is kept, no call runs, the turn fails and says why', async () => {
    const truncated = await run([sse.toolCalls([{name: 'note', arguments: '{"text": "trunc'}], {text: 'Let me note', finishReason: 'length'})]);
    expect(truncated.ran).toEqual([]);
    expect(ofType(truncated.events, 'error')).toMatchObject([{message: expect.stringMatching(/cut off.*output token limit/)}]);
    expect(ofType(truncated.events, 'turn-end')).toMatchObject([{reason: 'error'}]);
    expect(truncated.history.at(-1)).toMatchObject({type: 'assistant-text', content: 'Let me note'});
    const filtered = await run([sse.text('Half an ans', {finishReason: 'content_filter'})]);
    expect(ofType(filtered.events, 'error')).toMatchObject([{message: expect.stringMatching(/content filter/)}]);
    expect(ofType(filtered.events, 'turn-end')).toMatchObject([{reason: 'error'}]);
    expect(filtered.history.at(-1)).toMatchObject({type: 'assistant-text', content: 'Half an ans'});
  });

  test('an interrupt while a call is being checked: the call does not run and is answered', async () => {
    // write and edit do not watch the signal; once started they would write after the interrupt.
    const controller = new AbortController();
    const ran: string[] = [];
    const racy = defineTool({
      name: 'racy',
      kind: 'write',
      description: 'Interrupted while its outside check runs.',
      schema: z.object({}),
      keyArg: () => '',
      isOutside: async () => {
        controller.abort();
        return false;
      },
      preview: async () => ({title: 'racy', outside: false}),
      run: async () => {
        ran.push('racy');
        return {content: 'wrote', isError: false};
      },
    });
    server = await startOpenAiServer([sse.toolCall('racy', {}, {id: 'r1'})]);
    const history: Message[] = [{type: 'system', content: 'test'}];
    const events: AgentEvent[] = [];
    for await (const event of runAgent({
      provider: createProvider({baseURL: server.url, apiKey: 'test-key', model: 'm'}),
      tools: createToolRegistry([racy]),
      context: {root: dir, ledger: createReadLedger()},
      history,
      prompt: 'go',
      mode: () => 'yolo',
      approve: async () => ({kind: 'yes'}),
      canAsk: false,
      alwaysAllowed: new Set(),
      signal: controller.signal,
    })) {
      events.push(event);
    }
    expect(ran).toEqual([]);
    expect(ofType(events, 'tool-start')).toEqual([]);
    expect(ofType(events, 'tool-result')).toMatchObject([{id: 'r1', isError: true, content: expect.stringMatching(/Interrupted/)}]);
    expect(ofType(events, 'turn-end')).toMatchObject([{reason: 'aborted'}]);
  });

  test('a stream cut mid-way keeps the partial text, runs no tool call, and ends in error', async () => {
    const cut = sse.toolCalls([{name: 'note', arguments: {text: 'never'}}], {text: 'Partial words here'});
    const result = await run([sse.reset(cut, sse.bodyOf(cut).indexOf('"note"') + 20)]);
    expect(ofType(result.events, 'turn-end')).toMatchObject([{reason: 'error'}]);
    expect(ofType(result.events, 'error')).toHaveLength(1);
    expect(result.ran).toEqual([]);
    expect(result.history.at(-1)).toMatchObject({type: 'assistant-text', content: 'Partial words here'});
  });
});

describe('a prompt the server refuses as too long', () => {
  test('taken back when nothing can be compacted; Esc during that compaction ends the turn as interrupted', async () => {
    const history: Message[] = [{type: 'system', content: 'test system prompt'}, {type: 'user', content: 'old'}, {type: 'assistant-text', content: 'old answer'}];
    const refuse = (compact: () => Promise<never>) => ({shouldCompact: () => false, compact, learn: () => {}});
    const failed = await run([sse.text('never')], {
      persona: {kind: 'llama.cpp', window: 20},
      history,
      compaction: refuse(async () => ({ok: false, error: {code: 'nothing-to-compact', message: 'nothing'}}) as never),
    });
    expect(failed.events.at(-1)).toMatchObject({type: 'turn-end', reason: 'error'});
    expect(failed.events).toContainEqual(expect.objectContaining({type: 'error', code: 'provider', message: expect.stringMatching(/exceeds the available context size/)}));
    expect(failed.history.map(message => message.type)).toEqual(['system', 'user', 'assistant-text']);
    expect(ofType(failed.events, 'message')).toHaveLength(0);

    const controller = new AbortController();
    const stopped = await run([sse.text('never')], {
      persona: {kind: 'llama.cpp', window: 20},
      history: [...history],
      signal: controller.signal,
      // The person presses Esc while the summary is being written.
      compaction: refuse(async () => {
        controller.abort();
        return {ok: false, error: {code: 'aborted', message: 'aborted'}} as never;
      }),
    });
    expect(stopped.events.at(-1)).toMatchObject({type: 'turn-end', reason: 'aborted'});
    expect(ofType(stopped.events, 'error')).toHaveLength(0);
    expect(stopped.history).toHaveLength(3);
  });

  test('Esc during the automatic compaction before sending: interrupted, the prompt taken back, no "does not fit"', async () => {
    const controller = new AbortController();
    const history: Message[] = [{type: 'system', content: 's'}, {type: 'user', content: 'old'}, {type: 'assistant-text', content: 'a'}];
    const stopped = await run([sse.text('never')], {
      history,
      signal: controller.signal,
      compaction: {
        shouldCompact: () => true,
        fits: () => false,
        tooFull: () => 'does not fit',
        compact: async () => {
          controller.abort();
          return {ok: false, error: {code: 'aborted', message: 'aborted'}} as never;
        },
      },
    });
    expect(stopped.events.at(-1)).toMatchObject({type: 'turn-end', reason: 'aborted'});
    expect(ofType(stopped.events, 'error')).toHaveLength(0);
    expect(stopped.history).toHaveLength(3);
    expect(stopped.requests()).toHaveLength(0);
  });
});
