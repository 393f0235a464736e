import '../support/force-color.js';
import {render} from 'ink-testing-library';
import stripAnsi from 'strip-ansi';
import {afterEach, describe, expect, test} from 'vitest';
import {cleanup} from 'ink-testing-library';
import {computeChange} from '../../source/state/hunks.js';
import {DiffView} from '../../source/components/DiffView.js';
import {layoutDiff} from '../../source/components/diff-lines.js';
import {ThemeContext, createTheme} from '../../source/components/theme.js';
import {waitFor} from '../support/wait-for.js';

afterEach(cleanup);

const RED = '\u001B[31m';
const GREEN = '\u001B[32m';
const BG_RED = '\u001B[41m';
const BG_GREEN = '\u001B[42m';
const CYAN = '\u001B[36m';

const numbered = (count: number) => Array.from({length: count}, (_, index) => `line ${index + 1}\n`).join('');

const small = computeChange('const a = 1;\nconst b = 2;\nconst c = 3;\n', 'const a = 1;\nconst b = 20;\nconst c = 3;\nconst d = 4;\n');

describe('DiffView', () => {
  test('layout: header with counts, hunk header, gutters and markers', () => {
    const {lastFrame} = render(<DiffView title="edit src/x.ts" change={small} height={20} width={60} />);
    expect(stripAnsi(lastFrame()!)).toBe(
      [
        'edit src/x.ts  +2 −1',
        '@@ -1,3 +1,4 @@',
        '1 1   const a = 1;',
        '2   - const b = 2;',
        '  2 + const b = 20;',
        '3 3   const c = 3;',
        '  4 + const d = 4;',
      ].join('\n'),
    );
  });

  test('colors: removals red, additions green, changed words on a background, hunk header cyan', () => {
    const {lastFrame} = render(<DiffView title="edit src/x.ts" change={small} height={20} width={60} />);
    const frame = lastFrame()!;
    const lines = frame.split('\n');
    const removed = lines.find((line) => stripAnsi(line).includes('const b = 2;'))!;
    const added = lines.find((line) => stripAnsi(line).includes('const b = 20;'))!;
    expect(removed).toContain(RED);
    expect(added).toContain(GREEN);
    // Only the changed word is highlighted, the rest of the line is plain red/green.
    expect(removed).toMatch(new RegExp(`${escape(BG_RED)}[^\\n]*2;?`));
    expect(added).toContain(BG_GREEN);
    expect(added).not.toMatch(new RegExp(`${escape(BG_GREEN)}const`));
    expect(lines.find((line) => stripAnsi(line).startsWith('@@'))).toContain(CYAN);
  });

  test('a new file shows its content with line numbers and no markers', () => {
    const change = computeChange(null, 'alpha\nbeta\n');
    const {lastFrame} = render(<DiffView title="write notes.md" change={change} height={10} width={40} />);
    expect(stripAnsi(lastFrame()!)).toBe(['write notes.md  +2 −0', '1 alpha', '2 beta'].join('\n'));
  });

  test('a long diff shows what fits with a marker, and scrolls with arrows and pages', async () => {
    const change = computeChange(null, numbered(100));
    const {lastFrame, stdin} = render(<DiffView title="write big.txt" change={change} height={12} width={40} isActive />);
    const plain = () => stripAnsi(lastFrame()!);
    expect(plain().split('\n')).toHaveLength(12);
    expect(plain()).toContain('rows 1–10 of 100');
    expect(plain()).toContain('  1 line 1');
    stdin.write('\u001B[B'); // down
    await waitFor(() => plain().includes('rows 2–11 of 100'), plain);
    stdin.write('\u001B[6~'); // page down
    await waitFor(() => plain().includes('rows 12–21 of 100'), plain);
    expect(plain()).toContain(' 12 line 12');
    stdin.write('\u001B[5~'); // page up
    await waitFor(() => plain().includes('rows 2–11 of 100'), plain);
    stdin.write('\u001B[A'); // up
    await waitFor(() => plain().includes('rows 1–10 of 100'), plain);
    stdin.write('\u001B[A'); // already at the top: stays
    stdin.write('\u001B[F'); // end
    await waitFor(() => plain().includes('rows 91–100 of 100'), plain);
  });

  test('identical texts say so', () => {
    const {lastFrame} = render(<DiffView title="write same.txt" change={computeChange('a\n', 'a\n')} height={5} width={40} />);
    expect(stripAnsi(lastFrame()!)).toBe('write same.txt  +0 −0\nno changes');
  });

  test('only one hunk when asked', () => {
    const oldText = numbered(50);
    const change = computeChange(oldText, oldText.replace('line 3\n', 'line three\n').replace('line 40\n', ''));
    const {lastFrame} = render(<DiffView title="edit f" change={change} hunk={1} height={20} width={60} />);
    const plain = stripAnsi(lastFrame()!);
    expect(plain).toContain('@@ -37,7 +37,6 @@');
    expect(plain).not.toContain('line three');
    expect(plain.split('\n')[0]).toBe('edit f  +0 −1');
  });

  test('40 columns: long lines wrap under the gutter, no row is wider than the screen', () => {
    const long = 'x'.repeat(30) + ' 漢字 ' + 'y'.repeat(60) + '\tend\n';
    const change = computeChange('short\n', long);
    const lines = layoutDiff(change, 40);
    expect(lines.length).toBeGreaterThan(3);
    const {lastFrame} = render(<DiffView title="edit a-rather-long/path/to/some/file.ts" change={change} height={30} width={40} />);
    for (const row of stripAnsi(lastFrame()!).split('\n')) {
      expect([...row].reduce((sum, char) => sum + (/[漢字]/.test(char) ? 2 : 1), 0)).toBeLessThanOrEqual(40);
    }
    expect(stripAnsi(lastFrame()!)).toContain('end');
  });

  test('a final line break removed or added is shown, not a change that looks like none', () => {
    const rows = (before: string, after: string) => stripAnsi(render(<DiffView title="write nl.txt" change={computeChange(before, after)} height={12} width={60} />).lastFrame()!).split('\n');
    const removed = rows('alpha\nbeta\n', 'alpha\nbeta');
    expect(removed.findIndex(row => row.includes('+ beta')) + 1).toBe(removed.findIndex(row => row.includes('\\ No newline at end of file')));
    const added = rows('alpha\nbeta', 'alpha\nbeta\n');
    expect(added.findIndex(row => row.includes('- beta')) + 1).toBe(added.findIndex(row => row.includes('\\ No newline at end of file')));
  });

  test('a skin tone added to an emoji shows, the whole emoji marked as changed', () => {
    const lines = layoutDiff(computeChange('thumbs 👍 ok\n', 'thumbs 👍🏽 ok\n'), 60);
    const added = lines.find(line => line.kind === 'line' && line.type === 'added');
    expect(added?.kind === 'line' && added.segments).toEqual([
      {text: 'thumbs ', changed: false},
      {text: '👍🏽', changed: true},
      {text: ' ok', changed: false},
    ]);
    const {lastFrame} = render(<DiffView title="edit emo.txt" change={computeChange('thumbs 👍 ok\n', 'thumbs 👍🏽 ok\n')} height={10} width={60} />);
    expect(stripAnsi(lastFrame()!)).toContain('+ thumbs 👍🏽 ok');
    // The changed word, not the rest of the line after it.
    const accent = layoutDiff(computeChange('the cafe\u0301 is good and long enough to matter\n', 'the cafx\u0301 is good and long enough to matter\n'), 80).find(line => line.kind === 'line' && line.type === 'removed');
    expect(accent?.kind === 'line' && accent.segments.map(segment => `${segment.changed ? '*' : ''}${segment.text}`).join('|')).toBe('the |*cafe\u0301| is good and long enough to matter');
    // A flag is two code points: a change of its second half marks the whole flag.
    const flag = layoutDiff(computeChange('go 🇯🇵 now\n', 'go 🇯🇴 now\n'), 60).find(line => line.kind === 'line' && line.type === 'added');
    expect(flag?.kind === 'line' && flag.segments.map(segment => `${segment.changed ? '*' : ''}${segment.text}`).join('|')).toBe('go |*🇯🇴| now');
  });

  test('control characters in a file never reach the terminal', () => {
    const change = computeChange(null, 'evil \u001B[2J here\n');
    const {lastFrame} = render(<DiffView title="write x" change={change} height={5} width={40} />);
    expect(lastFrame()).not.toContain('\u001B[2J');
    expect(stripAnsi(lastFrame()!)).toContain('evil ·[2J here');
  });

  test('NO_COLOR: no color escapes at all, changed words still marked', () => {
    const {lastFrame} = render(
      <ThemeContext value={createTheme({NO_COLOR: '1'})}>
        <DiffView title="edit src/x.ts" change={small} height={20} width={60} />
      </ThemeContext>,
    );
    const frame = lastFrame()!;
    expect(frame).not.toMatch(/\u001B\[(3|4|9|10)\dm/);
    expect(frame).not.toContain('\u001B[2m');
    expect(frame).toContain('\u001B[4m'); // underline for the changed words
    expect(stripAnsi(frame)).toContain('  2 + const b = 20;');
  });
});

function escape(text: string): string {
  return text.replace(/[[\]\\^$.*+?()|{}]/g, '\\$&');
}

test('in the transcript (not scrollable) a long diff says how much is left out, with no scroll keys', () => {
  const change = computeChange(Array.from({length: 100}, (_, i) => `old ${i}\n`).join(''), Array.from({length: 100}, (_, i) => `new ${i}\n`).join(''));
  const frame = stripAnsi(render(<DiffView title="write big.txt" change={change} height={12} width={40} />).lastFrame() ?? '');
  expect(frame).toMatch(/… \d+ more rows \(\/diff shows them all\)/);
  expect(frame).not.toContain('PgUp');
});
