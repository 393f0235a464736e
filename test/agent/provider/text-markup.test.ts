import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {accumulateSse, createAccumulator} from '../../../source/agent/provider/accumulate.js';
import type {StreamDelta} from '../../../source/core/chat.js';
import {createMarkupFilter} from '../../../source/agent/provider/text-markup.js';
import type {ToolDefinition} from '../../../source/core/chat.js';
import {createToolRegistry} from '../../../source/tools/index.js';

const TOOLS: ToolDefinition[] = createToolRegistry().definitions({mode: 'ask'});

/** Feeds `content` as deltas of `size` characters, then ends the stream. */
function run(content: string, size: number, tools: readonly ToolDefinition[] = TOOLS) {
  const accumulator = createAccumulator({tools, makeId: position => `gen_${position}`});
  const deltas: StreamDelta[] = [];
  for (let at = 0; at < content.length; at += size) {
    deltas.push(...accumulator.pushChunk({choices: [{index: 0, delta: {content: content.slice(at, at + size)}}]}));
  }
  deltas.push(...accumulator.end());
  const shown = deltas.filter(delta => delta.type === 'text-delta').map(delta => delta.text).join('');
  const reasoning = deltas.filter(delta => delta.type === 'reasoning-delta').map(delta => delta.text).join('');
  return {turn: accumulator.finish(), shown, reasoning};
}

const SIZES = [1, 2, 3, 5, 7, 11, 1000];

describe('tool calls written as text', () => {
  it('Hermes / Qwen2.5 JSON markup naming an offered tool is a call, out of the answer, at any cut', () => {
    const content = 'Let me look.\n<tool_call>\n{"name": "read", "arguments": {"path": "src/a.ts"}}\n</tool_call>';
    for (const size of SIZES) {
      const {turn, shown} = run(content, size);
      expect(turn.toolCalls).toEqual([{id: 'gen_0', name: 'read', arguments: '{"path":"src/a.ts"}', source: 'text'}]);
      expect(turn.text).toBe('Let me look.\n');
      expect(shown).toBe('Let me look.\n');
    }
  });

  it('Qwen3-Coder XML markup: parameters typed by the tool schema, several calls in order', () => {
    const content = [
      '<tool_call>\n<function=read>\n<parameter=path>\nsrc/parser.ts\n</parameter>\n<parameter=offset>\n40\n</parameter>\n</function>\n</tool_call>',
      '<tool_call>\n<function=bash>\n<parameter=command>\nnpm test -- src/parser\n</parameter>\n</function>\n</tool_call>',
    ].join('\n');
    for (const size of SIZES) {
      const {turn, shown} = run(content, size);
      expect(turn.toolCalls).toEqual([
        {id: 'gen_0', name: 'read', arguments: '{"path":"src/parser.ts","offset":40}', source: 'text'},
        {id: 'gen_1', name: 'bash', arguments: '{"command":"npm test -- src/parser"}', source: 'text'},
      ]);
      expect(shown.trim()).toBe('');
    }
  });

  it('unknown names, malformed or unclosed markup, and markup with no tools offered stay text', () => {
    const cases = [
      '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>',
      '<tool_call>{"name": "read", "arguments": </tool_call>',
      '<tool_call><function=nope><parameter=x>1</parameter></function></tool_call>',
      'Here is how: <tool_call>{"name": "read"',
      'a < b and <tool_ca',
    ];
    for (const content of cases) {
      for (const size of SIZES) {
        const {turn, shown} = run(content, size);
        expect(turn.toolCalls).toEqual([]);
        expect(turn.text).toBe(content);
        expect(shown).toBe(content);
      }
    }
    const call = '<tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>';
    expect(run(call, 4, []).turn).toMatchObject({text: call, toolCalls: []});
  });

  it('<think> at the start is reasoning; later it is text', () => {
    for (const size of SIZES) {
      const {turn, shown, reasoning} = run('<think>\nThe user wants a list.\n</think>\n\nHere it is.', size);
      expect(turn).toMatchObject({reasoning: '\nThe user wants a list.\n', text: 'Here it is.'});
      expect(shown).toBe('Here it is.');
      expect(reasoning).toBe('\nThe user wants a list.\n');
    }
    expect(run('I said <think> here.', 3).turn).toMatchObject({text: 'I said <think> here.', reasoning: ''});
  });

  it('structured calls win: a leaked start of the call (llama.cpp, Qwen3-Coder) is dropped, not shown', () => {
    const body = readFileSync('/work/shared/sse-corpus/llamacpp-qwen3coder-content-leak-then-tool-call-authored.sse', 'utf8');
    const turn = accumulateSse(body, {tools: TOOLS});
    expect(turn.text).toBe("I'll run the parser tests first to see what fails.\n");
    expect(turn.toolCalls).toEqual([{id: '47FqDnlBySiTaPxUh89CuVXIVmpSki9u', name: 'bash', arguments: '{"command":"npm test -- src/parser"}'}]);
    // Without the tools, the stream is read exactly as sent.
    expect(accumulateSse(body).text).toContain('<tool_call>\n<function=bash');
  });

  it('the filter never holds back text that cannot become markup', () => {
    const filter = createMarkupFilter(TOOLS);
    expect(filter.push('Hello ')).toEqual([{type: 'text', text: 'Hello '}]);
    expect(filter.push('a <b> c <tool')).toEqual([{type: 'text', text: 'a <b> c '}]);
    expect(filter.push('s>')).toEqual([{type: 'text', text: '<tools>'}]);
  });
});

describe('tool calls written as text: cost', () => {
  it('a 200 kB call in 3-character deltas is read in one pass', {timeout: 10_000}, () => {
    const content = `<tool_call>\n{"name": "write", "arguments": {"path": "big.txt", "content": ${JSON.stringify('x'.repeat(200_000))}}}\n</tool_call>`;
    const {turn, shown} = run(content, 3);
    expect(turn.toolCalls).toHaveLength(1);
    expect(JSON.parse(turn.toolCalls[0]!.arguments).content).toHaveLength(200_000);
    expect(shown).toBe('');
  });
});
