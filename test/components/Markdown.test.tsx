import '../support/force-color.js';
import {render} from 'ink-testing-library';
import {expect, test} from 'vitest';
import {LiveTurn} from '../../source/components/LiveTurn.js';
import {Markdown, MarkdownContext} from '../../source/components/Markdown.js';
import {renderMarkdown} from '../support/markdown.js';
import {fitColumns} from '../../source/components/markdown-table.js';
import {createTheme, ThemeContext} from '../../source/components/theme.js';
import {initialState, reduce} from '../../source/state/reducer.js';
import {plain} from './helpers.js';

test('headings, emphasis, inline code, links and lists render without markdown syntax', () => {
  const out = plain(renderMarkdown('# Title\n\nSome *em*, **bold**, `code` and [docs](https://x.dev).\n\n- one\n- two', 60, true));
  expect(out).toContain('Title');
  expect(out).not.toContain('# Title');
  expect(out).toContain('Some em, bold, code and docs');
  expect(out).toContain('https://x.dev');
  expect(out).toMatch(/\* one\n\s*\* two/);
});

test('an e-mail address shows once, not followed by its mailto: link', () => {
  const out = plain(renderMarkdown('Write to bob@example.com or [the desk](mailto:desk@example.com).', 100, true));
  expect(out).toContain('Write to bob@example.com or the desk (mailto:desk@example.com).');
  expect(out).not.toContain('(mailto:bob@example.com)');
});

test('tables are drawn with borders', () => {
  const out = plain(renderMarkdown('| a | b |\n|---|---|\n| 1 | 2 |', 60, true));
  expect(out).toContain('│ a │ b │');
  expect(out).toContain('│ 1 │ 2 │');
});

test('fenced code is highlighted by language', () => {
  const out = renderMarkdown('```js\nconst answer = 42;\n```', 60, true);
  expect(plain(out)).toContain('const answer = 42;');
  expect(out).toMatch(/\u001B\[\d+mconst\u001B\[39m/);
});

test('NO_COLOR strips every color', () => {
  const out = renderMarkdown('# T\n\n```js\nconst a = 1;\n```', 60, false);
  expect(out).not.toContain('\u001B[');
  const {lastFrame} = render(
    <ThemeContext value={createTheme({NO_COLOR: '1'})}>
      <MarkdownContext value={renderMarkdown}>
        <Markdown text={'**bold** and `code`'} width={40} />
      </MarkdownContext>
    </ThemeContext>,
  );
  expect(lastFrame()).toBe('bold and code');
});

test('paragraphs reflow to the width', () => {
  const out = plain(renderMarkdown('word '.repeat(30), 40, true));
  for (const line of out.split('\n')) expect(line.length).toBeLessThanOrEqual(40);
});

test('an unfinished table or fence mid-stream still renders', () => {
  expect(plain(renderMarkdown('| a | b |\n|---', 60, true))).toContain('a');
  expect(plain(renderMarkdown('```py\nprint(1)', 60, true))).toContain('print(1)');
});

test('emphasis and code inside list items are rendered, not left as markdown', () => {
  const out = plain(renderMarkdown('1. **Read** `src/a.js`\n2. *Fix* it', 60, true));
  expect(out).toContain('1. Read src/a.js');
  expect(out).toContain('2. Fix it');
  expect(out).not.toContain('**');
});

/** The text of column `column` in a drawn table's body rows, its wrapped pieces joined by spaces. */
function columnText(out: string, column: number): string[] {
  const rows: string[][] = [[]];
  for (const line of out.split('\n')) {
    if (line.startsWith('├') || line.startsWith('└')) rows.push([]);
    else if (line.startsWith('│')) rows.at(-1)!.push(line.split('│')[column + 1]!.trim());
  }
  return rows.filter(row => row.length > 0).map(row => row.filter(Boolean).join(' '));
}

test('a table wider than the terminal wraps its cells inside columns that fit, losing nothing', () => {
  const cells = ['a long first cell here, with some more words', 'and a long second cell'];
  const out = plain(renderMarkdown(`| step | result |\n|---|---|\n| ${cells[0]} | ${cells[1]} |\n| b | c |`, 30, true));
  const lines = out.split('\n');
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(30);
  expect(lines.length).toBeGreaterThan(7);
  expect(columnText(out, 0)).toEqual(['step', cells[0], 'b']);
  expect(columnText(out, 1)).toEqual(['result', cells[1], 'c']);
});

test('a word longer than its column is broken across rows, every character kept', () => {
  const path = 'source/agent/session/a-very-long-file-name-indeed.ts';
  const out = plain(renderMarkdown(`| file | note |\n|---|---|\n| ${path} | fine |`, 30, true));
  for (const line of out.split('\n')) expect(line.length).toBeLessThanOrEqual(30);
  expect(columnText(out, 0)[1]!.replaceAll(' ', '')).toBe(path);
});

test('a table that fits keeps its natural widths, and a column can be aligned', () => {
  const out = plain(renderMarkdown('| name | size |\n|---|---:|\n| a.ts | 1 |\n| b.ts | 200 |', 80, true));
  expect(out).toContain('│ a.ts │    1 │');
  expect(out).toContain('│ b.ts │  200 │');
});

test('narrowed, the widest columns give way first', () => {
  expect(fitColumns([4, 50, 30], 100)).toEqual([4, 50, 30]);
  // 40 columns: 1 + 3 per column of borders and padding leaves 30 of text.
  expect(fitColumns([4, 50, 30], 40)).toEqual([4, 13, 13]);
  expect(fitColumns([4, 50, 20], 40)).toEqual([4, 13, 13]);
  expect(fitColumns([4, 50, 8], 40)).toEqual([4, 18, 8]);
  // Too narrow for readable columns: drawn at its natural width, cut at the edge by the view.
  expect(fitColumns([30, 30, 30, 30, 30], 30)).toBeNull();
});

test('a table too wide for any readable columns is cut at the edge, not wrapped', () => {
  const {lastFrame} = render(
    <MarkdownContext value={renderMarkdown}>
      <Markdown text={'| a | b | c | d | e | f |\n|---|---|---|---|---|---|\n| one two | three four | five six | seven | eight | nine |'} width={24} />
    </MarkdownContext>,
  );
  const lines = plain(lastFrame()).split('\n');
  expect(lines).toHaveLength(5);
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(24);
});

test('a table in a list item or a quote is fitted to the width left after its indent', () => {
  for (const md of [
    '1. Results:\n\n   | file | note |\n   |---|---|\n   | source/agent/session/window.ts | asked again after an answered turn |',
    '- x\n  - y\n\n    | file | note |\n    |---|---|\n    | source/agent/session/window.ts | asked again after an answered turn |',
    '> | file | note |\n> |---|---|\n> | source/agent/session/window.ts | asked again after an answered turn |',
  ]) {
    const out = plain(renderMarkdown(md, 40, true));
    for (const line of out.split('\n')) expect(line.length, out).toBeLessThanOrEqual(40);
    expect(out.replace(/[│\s]+/g, ' ')).toContain('answered');
  }
});

test('until the renderer has loaded, text shows as it is', () => {
  expect(plain(render(<Markdown text={'**bold**'} width={40} />).lastFrame())).toBe('**bold**');
});

test('a blank line of reasoning is a row with nothing sent on it, not a dimmed space', () => {
  const state = reduce(initialState({model: 'm', mode: 'ask'}), {type: 'reasoning-delta', text: 'one\n\ntwo', at: 1});
  const lines = (render(<LiveTurn live={state.live} now={0} width={40} maxRows={10} />).lastFrame() ?? '').split('\n');
  expect(lines.map(line => plain(line))).toEqual(['one', '', 'two']);
  expect(lines[0]).toContain('\u001B[');
  expect(lines[1]).toBe('');
});

test('a code block with tree-drawing lines wraps like any code, nothing cut', () => {
  const md = '```\nproject/\n├── src/\n│   └── components/markdown-render-with-a-long-name.ts  # the renderer\n└── README.md\n```';
  const frame = plain(render(<MarkdownContext value={renderMarkdown}><Markdown text={md} width={40} /></MarkdownContext>).lastFrame()!);
  expect(frame.replace(/\s+/g, '')).toContain('#therenderer');
});
