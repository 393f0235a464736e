import '../support/force-color.js';
import {render} from 'ink-testing-library';
import {expect, test} from 'vitest';
import {LiveTurn} from '../../source/components/LiveTurn.js';
import {Markdown, MarkdownContext} from '../../source/components/Markdown.js';
import {renderMarkdown} from '../../source/components/markdown-render.js';
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

test('a table wider than the terminal is cut at the edge, not wrapped', () => {
  const {lastFrame} = render(
    <MarkdownContext value={renderMarkdown}>
      <Markdown text={'| step | result |\n|---|---|\n| a long first cell here | and a long second cell |'} width={30} />
    </MarkdownContext>,
  );
  const lines = plain(lastFrame()).split('\n');
  expect(lines).toHaveLength(5);
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(30);
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
