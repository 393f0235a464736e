import {expect, test} from 'vitest';
import {nextBoundary, previousBoundary} from '../../source/core/graphemes.js';
import {countPromptRows, promptRows, promptWindow, shownText} from '../../source/components/prompt-rows.js';

const texts = (value: string, width: number) => promptRows(value, width).map(row => value.slice(row.start, row.end));

test('rows are cut so each fits with a column left for the cursor, wide characters counted twice', () => {
  expect(texts('abcdefghij', 5)).toEqual(['abcd', 'efgh', 'ij']);
  expect(texts('日本語のテキスト', 7)).toEqual(['日本語', 'のテキ', 'スト']);
  // A character is never split, even one wider than the row.
  expect(texts('a👍🏽b', 3)).toEqual(['a', '👍🏽', 'b']);
  expect(texts('ab\n\ncd', 10)).toEqual(['ab', '', 'cd']);
  const rows = promptRows('abcdef\nxy', 4);
  expect(rows.map(row => [row.lineStart, row.firstLine])).toEqual([[true, true], [false, true], [true, false]]);
});

test('the row count stops at the limit plus one, and a short prompt is not measured', () => {
  expect(countPromptRows('one\ntwo', 80, 10)).toBe(2);
  expect(countPromptRows('x'.repeat(1000), 11, 5)).toBe(6);
  expect(countPromptRows('line\n'.repeat(100), 80, 5)).toBe(6);
  expect(countPromptRows('日本語'.repeat(10), 80, 5)).toBe(1);
  expect(countPromptRows('日本語'.repeat(20), 80, 5)).toBe(2);
});

test("the window keeps the cursor's row, and a cursor at the end of a row that goes on is on the next one", () => {
  const value = Array.from({length: 20}, (_, index) => `l${index}`).join('\n');
  const atEnd = promptWindow(value, value.length, 80, 5);
  expect(atEnd.rows.map(row => value.slice(row.start, row.end))).toEqual(['l16', 'l17', 'l18', 'l19']);
  expect([atEnd.above, atEnd.below]).toEqual([16, 0]);
  const atStart = promptWindow(value, 0, 80, 5);
  expect([atStart.above, atStart.below]).toEqual([0, 16]);
  // 'abcd' | 'efgh': index 4 is where the second row starts.
  const cut = promptWindow('abcdefgh\n1\n2\n3\n4', 4, 5, 3);
  expect(cut.rows.map(row => row.start)).toEqual([0, 4]);
  // At the end of a line (before its line break), the cursor is on that line's last row.
  const lineEnd = promptWindow('abcdefgh\n1\n2\n3\n4', 8, 5, 3);
  expect(lineEnd.rows.map(row => row.start)).toEqual([0, 4]);
  expect(promptWindow('short', 5, 80, 5)).toEqual({rows: [{start: 0, end: 5, lineStart: true, firstLine: true}], above: 0, below: 0});
});

test('boundaries are those of what a person sees as characters', () => {
  const text = 'a👨‍👩‍👧e\u0301🇫🇷';
  const stops: number[] = [];
  for (let at = 0; at < text.length; at = nextBoundary(text, at)) stops.push(at);
  expect(stops.map(at => text.slice(at, nextBoundary(text, at)))).toEqual(['a', '👨‍👩‍👧', 'e\u0301', '🇫🇷']);
  expect(previousBoundary(text, text.length)).toBe(text.length - 4);
  expect(previousBoundary(text, 0)).toBe(0);
  expect(nextBoundary(text, text.length)).toBe(text.length);
  // Around plain ASCII nib does not ask ICU; where ASCII can join (CR LF, after a prepended mark) it does.
  expect(nextBoundary('ab\r\ncd', 2)).toBe(4);
  expect(previousBoundary('ab\r\ncd', 4)).toBe(2);
  expect(previousBoundary('x\u06001', 3)).toBe(1);
  expect(nextBoundary('abc', 1)).toBe(2);
});

test('a tab counts as the two spaces it is drawn as', () => {
  expect(shownText('a\tb')).toBe('a  b');
  expect(texts('\t'.repeat(11) + 'abc', 20)).toEqual(['\t'.repeat(9) + '', '\t\tabc']);
  expect(countPromptRows('\t'.repeat(11) + 'abc', 20, 5)).toBe(2);
});

test('a long paste is measured only as far as the limit', () => {
  const long = 'é'.repeat(300_000);
  expect(countPromptRows(long, 80, 10)).toBe(11);
  expect(promptRows(long, 80, 11)).toHaveLength(11);
  expect(promptRows(`${'x'.repeat(200)}\nmore`, 80, 2).map(row => row.start)).toEqual([0, 79]);
});
