import {render} from 'ink-testing-library';
import {expect, test} from 'vitest';
import type {AgentEvent} from '../../source/core/events.js';
import {initialState, reduce, type UiState} from '../../source/state/reducer.js';
import {LiveTurn} from '../../source/components/LiveTurn.js';
import {Transcript} from '../../source/components/Transcript.js';
import {MarkdownContext, type RenderMarkdown} from '../../source/components/Markdown.js';
import {renderMarkdown} from '../support/markdown.js';
import {plain} from './helpers.js';
import {waitFor} from '../support/wait-for.js';

const fold = (events: AgentEvent[], state: UiState = initialState({model: 'm', mode: 'ask'})) => events.reduce(reduce, state);

function Screen({state, rows = 20, width = 60, markdown = renderMarkdown}: {state: UiState; rows?: number; width?: number; markdown?: RenderMarkdown | null}) {
  return (
    <MarkdownContext value={markdown}>
      <Transcript items={state.transcript} epoch={state.epoch} width={width} />
      <LiveTurn live={state.live} now={state.now} width={width} maxRows={rows} />
    </MarkdownContext>
  );
}

test('finished items print once above the live region; the open block stays live', async () => {
  let state = fold([
    {type: 'turn-start', prompt: 'explain', at: 1},
    {type: 'text-delta', text: 'First paragraph.\n\nSecond, still stream'},
  ]);
  const {lastFrame, rerender, frames} = render(<Screen state={state} />);
  // The open block has the margin a finished block has, so its rows are where they will stay;
  // its one row comes with three reserved blank ones (LiveTurn's ROW_STEP).
  expect(plain(lastFrame())).toBe('\n› explain\n\nFirst paragraph.\n\nSecond, still stream\n\n\n');
  state = fold([{type: 'text-delta', text: 'ing.'}], state);
  rerender(<Screen state={state} />);
  await waitFor(() => expect(plain(lastFrame())).toContain('Second, still streaming.'));
  // <Static> wrote the finished items in one frame; later frames carry only the live part.
  const staticWrites = frames.filter(frame => plain(frame).includes('First paragraph.'));
  expect(staticWrites.length).toBeGreaterThanOrEqual(1);
  expect(plain(frames.at(-1)).startsWith('\n› explain')).toBe(true);
});

test('paragraphs that arrive in one piece keep the blank line between them, as they do arriving apart', () => {
  // One text-delta holding the whole answer is what a resumed session replays, and what one
  // network read of a fast server holds. The renderer puts a blank line between the blocks; Ink
  // gives an empty text no row, so those lines vanished and the paragraphs ran together.
  const answer = 'First paragraph.\n\nSecond paragraph.\n\n# Heading\nUnder it.\n\nStill open';
  const whole = plain(render(<Screen state={fold([{type: 'turn-start', prompt: 'x', at: 1}, {type: 'text-delta', text: answer}])} />).lastFrame());
  expect(whole).toContain('First paragraph.\n\nSecond paragraph.\n\nHeading\n\nUnder it.\n\nStill open');
  let state = fold([{type: 'turn-start', prompt: 'x', at: 1}]);
  for (const piece of answer.split(/(?<=\n\n)/)) state = fold([{type: 'text-delta', text: piece}], state);
  expect(plain(render(<Screen state={state} />).lastFrame())).toBe(whole);
  // In the live region too: a heading and the line under it, still open, keep their blank row.
  const open = fold([{type: 'turn-start', prompt: 'x', at: 1}, {type: 'text-delta', text: '# Heading\nUnder it, still stream'}]);
  const live = render(
    <MarkdownContext value={renderMarkdown}>
      <LiveTurn live={open.live} now={open.now} width={40} maxRows={10} />
    </MarkdownContext>,
  );
  expect(plain(live.lastFrame())).toBe('\nHeading\n\nUnder it, still stream\n');
  // A block that renders to nothing (only a link definition) takes no row but its margin, as before.
  const pieces = ['One.\n\n', '[a]: https://x.dev\n\n', 'Two.\n\n'].map(text => ({type: 'text-delta', text}) as const);
  const empty = fold([{type: 'turn-start', prompt: 'x', at: 1}, ...pieces]);
  expect(empty.transcript.map(item => item.kind)).toEqual(['user', 'assistant', 'assistant', 'assistant']);
  expect(plain(render(<Screen state={empty} />).lastFrame())).toContain('One.\n\n\nTwo.');
});

test('the open block takes its rows four at a time, so what is under it moves once per four rows', () => {
  const rowsOf = (text: string) => {
    const state = fold([{type: 'turn-start', prompt: 'x', at: 1}, {type: 'text-delta', text}]);
    const {lastFrame, unmount} = render(<LiveTurn live={state.live} now={state.now} width={40} maxRows={6} />);
    const lines = plain(lastFrame()).split('\n');
    unmount();
    return {rows: lines.length, text: lines.filter(line => line.trim() !== '').length};
  };
  // One row above the text is the block's margin.
  expect(rowsOf('one')).toEqual({rows: 5, text: 1});
  expect(rowsOf('one\ntwo\nthree\nfour')).toEqual({rows: 5, text: 4});
  expect(rowsOf('one\ntwo\nthree\nfour\nfive')).toEqual({rows: 6, text: 5});
  // Never past the rows the region may use.
  expect(rowsOf('1\n2\n3\n4\n5\n6\n7\n8\n9')).toEqual({rows: 6, text: 5});
  // A region of one row shows the text, not the margin.
  const state = fold([{type: 'turn-start', prompt: 'x', at: 1}, {type: 'text-delta', text: 'one\ntwo'}]);
  const {lastFrame} = render(<LiveTurn live={state.live} now={state.now} width={40} maxRows={1} />);
  expect(plain(lastFrame())).toBe('two');
});

test('every kind of finished item', () => {
  const state = fold([
    {type: 'turn-start', prompt: 'go', at: 1000},
    {type: 'reasoning-delta', text: 'hmm', at: 1000},
    {type: 'text-delta', text: 'Reading.', at: 5000},
    {type: 'tool-call', id: 'r', name: 'read', arguments: '{"path":"a.ts"}', keyArg: 'a.ts'},
    {type: 'tool-result', id: 'r', name: 'read', isError: false, content: 'x', detail: {summary: 'read 3 lines'}, at: 5100},
    {type: 'retry', attempt: 2, delayMs: 1000, message: '500 from server; retrying in 1 s (attempt 2 of 5)'},
    {type: 'error', message: 'connection reset'},
  ]);
  const frame = plain(render(<Screen state={state} />).lastFrame());
  expect(frame).toContain('› go');
  expect(frame).toContain('✻ thought for 4 s');
  expect(frame).toContain('Reading.');
  expect(frame).toContain('✓ read a.ts · read 3 lines');
  expect(frame).toContain('500 from server; retrying in 1 s (attempt 2 of 5)');
  expect(frame).not.toMatch(/retrying in .*retrying in/);
  expect(frame).toContain('✗ connection reset');
});

test('a prompt that wraps keeps the space after its mark, and its rows line up under the first', () => {
  for (const prompt of [Array.from({length: 40}, (_, index) => `word${String(index).padStart(3, '0')}`).join(' '), 'Z'.repeat(100)]) {
    const state = fold([{type: 'turn-start', prompt, at: 1}]);
    const lines = plain(render(<Screen state={state} width={60} />).lastFrame()).split('\n').filter(Boolean);
    expect(lines[0]).toMatch(/^› (word000 word001|ZZZ)/);
    expect(lines[1]).toMatch(/^  (word|ZZZ)/);
  }
});

test('the live region never outgrows its rows, however long the open block', () => {
  const code = Array.from({length: 200}, (_, index) => `line ${index}`).join('\n');
  const state = fold([{type: 'text-delta', text: `\`\`\`text\n${code}\n`}]);
  expect(state.transcript).toEqual([]);
  const frame = plain(
    render(
      <MarkdownContext value={renderMarkdown}>
        <LiveTurn live={state.live} now={0} width={40} maxRows={8} />
      </MarkdownContext>,
    ).lastFrame(),
  );
  expect(frame.split('\n')).toHaveLength(8);
  expect(frame).toContain('line 199');
});

test('reasoning streams dimmed in the live region, capped to a few lines', () => {
  const state = fold([{type: 'reasoning-delta', text: 'a\nb\nc\nd\ne', at: 1}]);
  const frame = plain(render(<LiveTurn live={state.live} now={0} width={40} maxRows={10} />).lastFrame());
  expect(frame).toBe('c\nd\ne');
});

test('tools in flight show under the open text', () => {
  const state = fold([
    {type: 'tool-call', id: 'b', name: 'bash', arguments: '{"command":"npm test"}', keyArg: 'npm test'},
    {type: 'tool-start', id: 'b', name: 'bash', at: 1000},
    {type: 'tool-output', id: 'b', chunk: 'PASS a\nPASS b\n'},
  ]);
  const frame = plain(render(<LiveTurn live={state.live} now={3000} width={60} maxRows={10} />).lastFrame());
  expect(frame).toBe('◑ bash npm test · running 2 s\n  │ PASS a\n  │ PASS b');
});

test('a write nobody was asked about shows the diff of what was written; an approved one does not repeat it', () => {
  const file = {path: 'a.txt', oldText: 'one\n', newText: 'two\n'};
  const state = fold([
    {type: 'tool-call', id: 'w1', name: 'write', arguments: '{"path":"a.txt"}', keyArg: 'a.txt'},
    {type: 'tool-result', id: 'w1', name: 'write', isError: false, content: 'ok', detail: {summary: '+1 −1', file}, at: 1},
    {type: 'tool-call', id: 'w2', name: 'write', arguments: '{"path":"a.txt"}', keyArg: 'a.txt'},
    {type: 'approval-request', request: {id: 'w2', name: 'write', args: {}, preview: {title: 'write a.txt', outside: false}}},
    {type: 'approval-decision', id: 'w2', decision: {kind: 'yes'}},
    {type: 'tool-result', id: 'w2', name: 'write', isError: false, content: 'ok', detail: {summary: '+1 −1', file}, at: 2},
  ]);
  const frame = plain(render(<Screen state={state} />).lastFrame());
  expect(frame.match(/- one/g)).toHaveLength(1);
  expect(frame).toContain('+ two');
});

test('answers wait for the markdown renderer before they are printed for good', async () => {
  const state = fold([
    {type: 'turn-start', prompt: 'q', at: 1},
    {type: 'text-delta', text: '**Bold** answer.\n\nmore'},
    {type: 'turn-end', reason: 'completed', at: 2},
  ]);
  const {lastFrame, rerender} = render(<Screen state={state} markdown={null} />);
  expect(plain(lastFrame()).trim()).toBe('› q');
  rerender(<Screen state={state} />);
  await waitFor(() => expect(plain(lastFrame())).toContain('Bold answer.'));
  expect(plain(lastFrame())).not.toContain('**');
});

test('a compaction before the next request shows one live row with its reason and time, gone when the request goes out', () => {
  const started = reduce(fold([{type: 'turn-start', prompt: 'x', at: 1000}, {type: 'compaction-start', reason: 'auto', at: 1000}]), {type: 'tick', at: 13_500});
  const row = plain(render(<LiveTurn live={started.live} now={started.now} width={120} maxRows={6} />).lastFrame());
  expect(row.trim()).toBe('⋯ compacting: the context is nearly full, so the model summarises the older turns · 13 s · esc stops');
  // Nothing to compact, so the request goes out as it was: the row goes with it.
  const sent = reduce(started, {type: 'request-start', round: 1, at: 14_000});
  expect(plain(render(<LiveTurn live={sent.live} now={sent.now} width={120} maxRows={6} />).lastFrame()).trim()).toBe('');
});
