import stringWidth from 'string-width';
import {graphemes, nextBoundary} from '../core/graphemes.js';
import {isPrintableAscii} from './columns.js';

/**
 * How a prompt takes the screen's rows, and how one too tall for the screen is shown. Pure. The
 * cursor moves by grapheme (core/graphemes.ts): stepping between the code points of a skin-toned
 * thumb put typed text inside the emoji.
 */

/** One screen row of the prompt: `value.slice(start, end)`, and whether a line of the text starts there. */
export type PromptRow = {start: number; end: number; lineStart: boolean; firstLine: boolean};

/**
 * The rows the prompt takes at `width` columns: each line of the text, cut where the next
 * character would pass `width - 1` (a column stays free for the cursor past a row's end). Cuts
 * fall between characters, not words, so the count is exact. A tab is drawn as two spaces
 * (shownText), so it counts two. Stops once `limit` rows are cut: a long paste is measured only as
 * far as the screen needs.
 */
export function promptRows(value: string, width: number, limit = Number.POSITIVE_INFINITY): PromptRow[] {
  const room = Math.max(1, width - 1);
  const rows: PromptRow[] = [];
  let lineStartAt = 0;
  for (const line of value.split('\n')) {
    if (rows.length >= limit) break;
    const lineEnd = lineStartAt + line.length;
    let start = lineStartAt;
    let used = 0;
    // A line too short to wrap (no character takes more than two columns, a tab two) is one row,
    // and ASCII is one column a character: both are cut without measuring.
    const wraps = line.length * 2 > room;
    if (wraps && isPrintableAscii(line)) {
      for (; lineEnd - start > room && rows.length < limit; start += room) rows.push({start, end: start + room, lineStart: start === lineStartAt, firstLine: lineStartAt === 0});
    } else if (wraps) {
      for (const {segment, index} of graphemes(line)) {
        if (rows.length >= limit) break;
        const width = segment === '\t' ? 2 : stringWidth(segment);
        if (used + width > room && used > 0) {
          rows.push({start, end: lineStartAt + index, lineStart: start === lineStartAt, firstLine: lineStartAt === 0});
          start = lineStartAt + index;
          used = 0;
        }
        used += width;
      }
    }
    if (rows.length < limit) rows.push({start, end: lineEnd, lineStart: start === lineStartAt, firstLine: lineStartAt === 0});
    lineStartAt = lineEnd + 1;
  }
  return rows;
}

/**
 * The prompt's rows at `width`, counted up to `limit + 1` (more are not told apart). Cheap for a
 * short prompt, which is measured only when it could wrap.
 */
export function countPromptRows(value: string, width: number, limit: number): number {
  const lines = value.split('\n');
  if (lines.length > limit) return limit + 1;
  // No character is wider than two columns (a tab is drawn as two spaces).
  if (lines.every(line => line.length * 2 <= width - 1)) return lines.length;
  return Math.min(limit + 1, promptRows(value, width, limit + 1).length);
}

/** The rows shown: all of them, or when there are more than `maxRows`, one row that says what is hidden and the rest around the cursor. */
export type PromptWindow = {rows: PromptRow[]; above: number; below: number};

export function promptWindow(value: string, cursor: number, width: number, maxRows: number): PromptWindow {
  const rows = promptRows(value, width);
  if (rows.length <= maxRows) return {rows, above: 0, below: 0};
  const visible = Math.max(1, maxRows - 1);
  // The cursor's row: the one it stands in, or at the end of a line, that line's last row.
  let at = rows.findIndex(row => cursor >= row.start && cursor < row.end);
  if (at === -1) at = Math.max(0, rows.findIndex((row, index) => row.end === cursor && (index === rows.length - 1 || rows[index + 1]!.lineStart)));
  const first = Math.min(Math.max(0, at - visible + 1), Math.max(0, rows.length - visible));
  return {rows: rows.slice(first, first + visible), above: first, below: Math.max(0, rows.length - first - visible)};
}

/** The text as drawn: a tab, which the layout cannot measure (the terminal moves to its next stop), as two spaces. */
export function shownText(text: string): string {
  return text.includes('\t') ? text.replaceAll('\t', '  ') : text;
}

/**
 * The cursor moved one line up (-1) or down (1) in a prompt with line breaks: to the same column,
 * or that line's end when it is shorter. Null on the first (or last) line: ↑/↓ then walk history.
 */
export function lineMove(text: string, cursor: number, direction: -1 | 1): number | null {
  const start = cursor === 0 ? 0 : text.lastIndexOf('\n', cursor - 1) + 1;
  const column = cursor - start;
  if (direction < 0) {
    if (start === 0) return null;
    const above = start === 1 ? 0 : text.lastIndexOf('\n', start - 2) + 1;
    return snapForward(text, above, Math.min(above + column, start - 1));
  }
  const end = text.indexOf('\n', cursor);
  if (end === -1) return null;
  const after = text.indexOf('\n', end + 1);
  return snapForward(text, end + 1, Math.min(end + 1 + column, after === -1 ? text.length : after));
}

/** The first character boundary at or after `target`, stepping from `from`. */
function snapForward(text: string, from: number, target: number): number {
  let at = from;
  while (at < target) at = nextBoundary(text, at);
  return at;
}
