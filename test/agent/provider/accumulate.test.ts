import {readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {accumulateSse, createAccumulator} from '../../../source/agent/provider/accumulate.js';
import {createSseParser} from '../../../source/agent/provider/sse.js';
import type {AssistantTurn, StreamDelta} from '../../../source/core/chat.js';

const fixtures = path.resolve(import.meta.dirname, 'fixtures');
const read = (name: string) => readFileSync(path.join(fixtures, `${name}.sse`), 'utf8');

const base: AssistantTurn = {
  text: '',
  reasoning: '',
  refusal: '',
  toolCalls: [],
  finishReason: null,
  usage: null,
  error: null,
  aborted: false,
  malformedChunks: 0,
};

/** What each of our fixtures (test/fixtures/*.sse) must reassemble to. */
const expected: Record<string, Partial<AssistantTurn>> = {
  'interleaved-calls-mid-escape': {
    toolCalls: [
      {id: 'call_read_1', name: 'read', arguments: '{"path":"notes/caf\\u00e9 \\"draft\\".md","limit":20}'},
      {id: 'call_grep_2', name: 'grep', arguments: '{"pattern":"a\\\\b","path":"."}'},
    ],
    finishReason: 'tool_calls',
    usage: {promptTokens: 120, completionTokens: 30, totalTokens: 150},
  },
  'call-without-index': {
    toolCalls: [{id: 'Xq81mZ', name: 'list', arguments: '{"path": "src"}'}],
    finishReason: 'tool_calls',
    usage: {promptTokens: 40, completionTokens: 9, totalTokens: 49},
  },
  'negative-index': {
    toolCalls: [
      {id: 'neg_a', name: 'read', arguments: '{"path":"a.txt"}'},
      {id: 'neg_b', name: 'read', arguments: '{"path":"b.txt"}'},
    ],
    finishReason: 'tool_calls',
  },
  'reused-index-zero': {
    text: 'Two reads.',
    toolCalls: [
      {id: 'first', name: 'read', arguments: '{"path":"one.md"}'},
      {id: 'second', name: 'read', arguments: '{"path":"two.md"}'},
    ],
    finishReason: 'tool_calls',
  },
  'empty-id-and-name-continuations': {
    toolCalls: [{id: 'call_bash', name: 'bash', arguments: '{"command": "ls -la"}'}],
    finishReason: 'tool_calls',
  },
  'object-arguments': {
    toolCalls: [{id: 'obj_1', name: 'grep', arguments: '{"pattern":"TODO","path":"lib"}'}],
    // Some servers say "stop" on a tool turn: the loop decides by the calls, not by this.
    finishReason: 'stop',
  },
  'index-one-empty-arguments': {
    text: 'Listing.',
    toolCalls: [{id: 'toolu_zero', name: 'list', arguments: '{}'}],
    finishReason: 'tool_calls',
    usage: {promptTokens: 7, completionTokens: 3, totalTokens: 10},
  },
  'reasoning-fields': {text: 'It is fine.', reasoning: 'Check the file first.', finishReason: 'stop'},
  'content-parts': {
    text: '1 + 2 = 3',
    reasoning: 'Small sum. Three.',
    finishReason: 'stop',
    usage: {promptTokens: 5, completionTokens: 6, totalTokens: 11},
  },
  refusal: {refusal: "I can't help with that.", finishReason: 'stop'},
  'explicit-nulls': {
    text: 'Done now.',
    reasoning: 'Plan.',
    finishReason: 'stop',
    usage: {promptTokens: 3, completionTokens: 4, totalTokens: 7},
  },
  'error-after-text': {text: 'Starting the refactor', error: 'Upstream model crashed. (server_error)'},
  'error-field-then-done': {
    text: 'The config loader reads three files:',
    error: 'context shift is disabled (500)',
  },
  // The half-sent call is still in the turn; the loop runs none of a failed turn's calls.
  'bare-error-object-mid-call': {
    text: 'Writing the fix.',
    toolCalls: [{id: 'chatcmpl-tool-5e1', name: 'bash', arguments: '{"command": "rm -rf bu'}],
    error: 'The decoder prompt (length 33001) is longer than the maximum model length of 32768. (400)',
  },
  'surrogate-pair-split': {
    text: 'Tests pass \u{1F389} and a stray \uFFFD half.',
    reasoning: '\u{1F680}',
    finishReason: 'stop',
  },
  'finish-without-done': {text: 'Short.', finishReason: 'length'},
  'empty-choices-and-no-delta': {
    text: 'Filtered fine.',
    finishReason: 'stop',
    usage: {promptTokens: 9, completionTokens: 2, totalTokens: 11},
  },
  'legacy-function-call': {
    toolCalls: [{id: 'call_0', name: 'read', arguments: '{"path":"x.ts"}'}],
    finishReason: 'function_call',
  },
  'crlf-comments-malformed': {
    text: 'Line  survived.',
    finishReason: 'stop',
    usage: {promptTokens: 1, completionTokens: 2, totalTokens: 3},
    malformedChunks: 1,
  },
};

/** Feeds bytes cut at the given sizes through a streaming decoder, as the provider does. */
function accumulateBytes(body: string, sizes: () => number): {turn: AssistantTurn; deltas: StreamDelta[]} {
  const bytes = Buffer.from(body, 'utf8');
  const decoder = new TextDecoder();
  const parser = createSseParser();
  const accumulator = createAccumulator();
  const deltas: StreamDelta[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = Math.max(1, sizes());
    const text = decoder.decode(bytes.subarray(at, at + size), {stream: true});
    for (const event of parser.feed(text)) deltas.push(...accumulator.pushEvent(event));
    at += size;
  }
  for (const event of [...parser.feed(decoder.decode()), ...parser.end()]) deltas.push(...accumulator.pushEvent(event));
  return {turn: accumulator.finish(), deltas};
}

describe('accumulate: fixtures', () => {
  it('every fixture has an expectation', () => {
    const names = readdirSync(fixtures)
      .filter(file => file.endsWith('.sse'))
      .map(file => file.slice(0, -4))
      .sort();
    expect(names).toEqual(Object.keys(expected).sort());
  });

  for (const [name, want] of Object.entries(expected)) {
    it(name, () => {
      expect(accumulateSse(read(name))).toEqual({...base, ...want});
    });

    it(`${name}: the same turn whatever the byte cuts`, () => {
      const body = read(name);
      const whole = accumulateSse(body);
      for (const seed of [1, 2, 3, 4, 5]) {
        let state = seed;
        const next = () => {
          state = (state * 1103515245 + 12345) % 2 ** 31;
          return 1 + (state % 9);
        };
        const {turn, deltas} = accumulateBytes(body, next);
        expect(turn).toEqual(whole);
        expect(deltas.filter(d => d.type === 'text-delta').map(d => d.text).join('')).toBe(whole.text);
        expect(deltas.filter(d => d.type === 'reasoning-delta').map(d => d.text).join('')).toBe(whole.reasoning);
      }
      expect(accumulateBytes(body, () => 1).turn).toEqual(whole);
    });
  }
});

describe('accumulate: chunk rules', () => {
  const call = (fragment: Record<string, unknown>) => ({choices: [{index: 0, delta: {tool_calls: [fragment]}}]});

  it('an id-less, index-less fragment continues the latest call', () => {
    const accumulator = createAccumulator();
    accumulator.pushChunk(call({index: 0, id: 'a', function: {name: 'read', arguments: '{"path":'}}));
    accumulator.pushChunk(call({index: 1, id: 'b', function: {name: 'list', arguments: '{'}}));
    accumulator.pushChunk(call({function: {arguments: '}'}}));
    accumulator.pushChunk(call({index: 0, function: {arguments: '"a"}'}}));
    expect(accumulator.finish().toolCalls).toEqual([
      {id: 'a', name: 'read', arguments: '{"path":"a"}'},
      {id: 'b', name: 'list', arguments: '{}'},
    ]);
  });

  it('an index-less fragment with a different name after arguments is a new call', () => {
    const accumulator = createAccumulator({makeId: position => `gen_${position}`});
    accumulator.pushChunk(call({function: {name: 'read', arguments: '{"path":"a"}'}}));
    accumulator.pushChunk(call({function: {name: 'read', arguments: ''}}));
    accumulator.pushChunk(call({function: {name: 'list', arguments: '{"path":"."}'}}));
    expect(accumulator.finish().toolCalls).toEqual([
      {id: 'gen_0', name: 'read', arguments: '{"path":"a"}'},
      {id: 'gen_1', name: 'list', arguments: '{"path":"."}'},
    ]);
  });

  it('parallel calls to one tool with neither id nor index stay apart', () => {
    const whole = createAccumulator({makeId: position => `gen_${position}`});
    whole.pushChunk(call({function: {name: 'read', arguments: '{"path":"a.txt"}'}}));
    whole.pushChunk(call({function: {name: 'read', arguments: '{"path":"b.txt"}'}}));
    expect(whole.finish().toolCalls).toEqual([
      {id: 'gen_0', name: 'read', arguments: '{"path":"a.txt"}'},
      {id: 'gen_1', name: 'read', arguments: '{"path":"b.txt"}'},
    ]);
    // The name first with no arguments, as Mistral and GLM send it, then the arguments in pieces.
    const pieces = createAccumulator({makeId: position => `gen_${position}`});
    for (const path of ['a.txt', 'b.txt']) {
      pieces.pushChunk(call({function: {name: 'read', arguments: ''}}));
      pieces.pushChunk(call({function: {arguments: '{"path":'}}));
      pieces.pushChunk(call({function: {name: 'read', arguments: `"${path}"}`}}));
    }
    expect(pieces.finish().toolCalls).toEqual([
      {id: 'gen_0', name: 'read', arguments: '{"path":"a.txt"}'},
      {id: 'gen_1', name: 'read', arguments: '{"path":"b.txt"}'},
    ]);
    // Braces and quotes inside a string do not end the arguments.
    const braces = createAccumulator({makeId: position => `gen_${position}`});
    for (const piece of ['{"content":"}', '\\"}', '{}"}']) braces.pushChunk(call({function: {name: 'write', arguments: piece}}));
    expect(braces.finish().toolCalls).toEqual([{id: 'gen_0', name: 'write', arguments: '{"content":"}\\"}{}"}'}]);
  });

  it('a different index is another call even when the id repeats; the second gets an id of its own', () => {
    const accumulator = createAccumulator({makeId: position => `gen_${position}`});
    accumulator.pushChunk(call({index: 0, id: 'same', function: {name: 'read', arguments: ''}}));
    accumulator.pushChunk(call({index: 1, id: 'same', function: {name: 'read', arguments: ''}}));
    accumulator.pushChunk(call({index: 0, id: 'same', function: {arguments: '{"path":"a.txt"}'}}));
    accumulator.pushChunk(call({index: 1, function: {arguments: '{"path":"b.txt"}'}}));
    expect(accumulator.finish().toolCalls).toEqual([
      {id: 'same', name: 'read', arguments: '{"path":"a.txt"}'},
      {id: 'gen_1', name: 'read', arguments: '{"path":"b.txt"}'},
    ]);
  });

  it('an id arriving after an id-less first fragment names that call', () => {
    const accumulator = createAccumulator();
    accumulator.pushChunk(call({index: 0, function: {name: 'read', arguments: '{"pa'}}));
    accumulator.pushChunk(call({index: 0, id: 'late', function: {arguments: 'th":"z"}'}}));
    expect(accumulator.finish().toolCalls).toEqual([{id: 'late', name: 'read', arguments: '{"path":"z"}'}]);
  });

  it('ignores other choices, junk values and null everywhere', () => {
    const accumulator = createAccumulator();
    accumulator.pushChunk({choices: [{index: 1, delta: {content: 'other choice'}}]});
    accumulator.pushChunk({choices: [null, 'x', {index: 0, delta: null, finish_reason: null}]});
    accumulator.pushChunk({choices: [{index: 0, delta: {content: 'kept', tool_calls: null, refusal: null}}], usage: null});
    accumulator.pushChunk({choices: [{delta: {tool_calls: [null, 7]}}]});
    accumulator.pushChunk(42);
    expect(accumulator.finish()).toEqual({...base, text: 'kept', malformedChunks: 1});
  });

  it('finish_reason is the last non-null one; usage the last non-null object', () => {
    const accumulator = createAccumulator();
    accumulator.pushChunk({choices: [{index: 0, delta: {}, finish_reason: 'tool_calls'}], usage: {prompt_tokens: 1}});
    accumulator.pushChunk({choices: [{index: 0, delta: {}, finish_reason: null}], usage: null});
    accumulator.pushChunk({choices: [], usage: {input_tokens: 4, output_tokens: 5}});
    expect(accumulator.finish()).toMatchObject({
      finishReason: 'tool_calls',
      usage: {promptTokens: 4, completionTokens: 5, totalTokens: 9},
    });
    expect(accumulator.rawUsage).toEqual({input_tokens: 4, output_tokens: 5});
  });

  it('an `event: error` and a string error both fail the turn, keeping the text', () => {
    const parsed = accumulateSse(
      'data: {"choices":[{"delta":{"content":"partial"}}]}\n\nevent: error\ndata: {"message":"quota exhausted"}\n\n',
    );
    expect(parsed).toMatchObject({text: 'partial', error: 'quota exhausted'});
    expect(accumulateSse('data: {"error":"model overloaded"}\n\n').error).toBe('model overloaded');
  });

  it('object arguments too deep to serialize become a string the tool rejects, not a crash', () => {
    const depth = 50_000;
    const body = `data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"d","function":{"name":"read","arguments":{"path":${'['.repeat(depth)}${']'.repeat(depth)}}}}]}}]}\n\n`;
    expect(accumulateSse(body).toolCalls).toEqual([{id: 'd', name: 'read', arguments: '"arguments nested too deeply to read"'}]);
  });

  it('no delta carries half a surrogate pair, whatever the cut', () => {
    const accumulator = createAccumulator();
    const deltas = [
      ...accumulator.pushChunk({choices: [{delta: {content: 'a\uD83C'}}]}),
      ...accumulator.pushChunk({choices: [{delta: {content: '\uDF89b\uD83C'}}]}),
      ...accumulator.pushChunk({choices: [{delta: {content: 'c'}}]}),
      ...accumulator.pushChunk({choices: [{delta: {content: '\uD83D'}}]}),
    ];
    deltas.push(...accumulator.end());
    expect(deltas.map(delta => delta.text)).toEqual(['a', '\u{1F389}b', '\uFFFDc', '\uFFFD']);
    const lone = /[\uD800-\uDFFF]/;
    for (const delta of deltas) expect(delta.text.replace(/\p{Extended_Pictographic}/gu, '')).not.toMatch(lone);
    // The high half still waiting at the end becomes U+FFFD, as every half that never pairs.
    expect(accumulator.finish().text).toBe('a\u{1F389}b\uFFFDc\uFFFD');
  });

  it('a high half as the last thing in the stream becomes U+FFFD, in text, reasoning and refusal', () => {
    expect(accumulateSse('data: {"choices":[{"delta":{"content":"a\\ud83d"}}]}\n\ndata: [DONE]\n\n').text).toBe('a\uFFFD');
    const turn = accumulateSse('data: {"choices":[{"delta":{"reasoning_content":"r\\ud83d","refusal":"no\\ud83d"}}]}\n\n');
    expect(turn).toMatchObject({reasoning: 'r\uFFFD', refusal: 'no\uFFFD'});
    const tools = [{type: 'function' as const, function: {name: 'read', description: '', parameters: {}}}];
    expect(accumulateSse('data: {"choices":[{"delta":{"content":"b\\ud83d"}}]}\n\n', {tools}).text).toBe('b\uFFFD');
  });

  it('an `error:` field with text that is not JSON is the error message', () => {
    expect(accumulateSse('data: {"choices":[{"delta":{"content":"so"}}]}\n\nerror: out of memory\n\ndata: [DONE]\n\n')).toMatchObject({
      text: 'so',
      error: 'out of memory',
    });
  });

  it('fail keeps the first error and marks aborts', () => {
    const accumulator = createAccumulator();
    accumulator.pushChunk({choices: [{delta: {content: 'so far'}}]});
    accumulator.fail('aborted', {aborted: true});
    accumulator.fail('later');
    expect(accumulator.finish()).toMatchObject({text: 'so far', error: 'aborted', aborted: true});
    expect(accumulator.hasOutput).toBe(true);
  });
});

describe('sse parser', () => {
  it('handles a \\r\\n split across reads, a BOM, and a last event with no blank line', () => {
    const parser = createSseParser();
    const events = [
      ...parser.feed('\uFEFFdata: a\r'),
      ...parser.feed('\n\r'),
      ...parser.feed('\ndata: b\n'),
      ...parser.feed('data: c'),
      ...parser.end(),
    ];
    expect(events).toEqual([
      {event: null, data: ['a']},
      {event: null, data: ['b', 'c']},
    ]);
  });

  it('splits a large read with mixed line ends in one linear pass', {timeout: 10_000}, () => {
    // Generous bound: the old scan looked for the next \r from every line to the end (27 s here).
    const event = 'data: {"choices":[{"delta":{"content":"abcd"}}]}\n\n';
    const body = `data: x\r\n\r\ndata: y\r\r${event.repeat(200_000)}data: z\r\n\r\n`;
    const events = createSseParser().feed(body);
    expect(events).toHaveLength(200_003);
    expect(events.slice(0, 2)).toEqual([
      {event: null, data: ['x']},
      {event: null, data: ['y']},
    ]);
    expect(events.at(-1)).toEqual({event: null, data: ['z']});
  });

  it('reads a long line that comes in many reads in linear time', {timeout: 10_000}, () => {
    // The old parser joined and searched the whole unfinished line on every read (32 MB: 11 s).
    const parser = createSseParser();
    const piece = 'x'.repeat(16 * 1024);
    let events = parser.feed('data: ');
    for (let read = 0; read < 1536; read++) events = events.concat(parser.feed(piece));
    events = events.concat(parser.feed('\n\n'));
    expect(events).toHaveLength(1);
    expect(events[0]!.data[0]!.length).toBe(24 * 1024 * 1024);
    expect(parser.lineTooLong).toBe(false);
  });

  it('stops at a line longer than the limit, keeping the events before it', () => {
    const parser = createSseParser();
    const piece = 'x'.repeat(1024 * 1024);
    let events = parser.feed('data: before\n\ndata: ');
    for (let read = 0; read < 32; read++) events = events.concat(parser.feed(piece));
    expect(parser.lineTooLong).toBe(true);
    expect(parser.feed('\n\ndata: after\n\n')).toEqual([]);
    expect(parser.end()).toEqual([]);
    expect(events).toEqual([{event: null, data: ['before']}]);
  });

  it('keeps the event name and drops comments, id and retry fields', () => {
    const parser = createSseParser();
    expect(parser.feed(': ping\nid: 4\nretry: 10\nevent: error\ndata:{"x":1}\n\n')).toEqual([
      {event: 'error', data: ['{"x":1}']},
    ]);
  });

  it('reads JSON lines with no blank line between them one by one', () => {
    const turn = accumulateSse('data: {"choices":[{"delta":{"content":"a"}}]}\ndata: {"choices":[{"delta":{"content":"b"}}]}\n\n');
    expect(turn.text).toBe('ab');
  });
});
