import {diffWordsWithSpace} from 'diff';
import {showInvisible} from '../core/terminal-text.js';
import {hunkHeader, type FileChange, type HunkLine} from '../state/hunks.js';
import {textWidth, truncate} from './columns.js';
import {graphemes, nextBoundary} from '../core/graphemes.js';

/** A run of text in a diff line; `changed` marks the words that differ from the paired line. */
export type Segment = {readonly text: string; readonly changed: boolean};

export type LineType = HunkLine['kind'];

/**
 * One screen line of a diff, already cut to the width it will be drawn in, so that scrolling
 * counts exactly what is on screen and Ink never wraps behind our back.
 */
export type ScreenLine =
  | {readonly kind: 'hunk'; readonly text: string}
  | {
      readonly kind: 'line';
      readonly type: LineType;
      /** Line numbers, padded; blank on the continuation of a wrapped line. */
      readonly gutter: string;
      /** `+`, `-` or space; blank on continuations. */
      readonly marker: string;
      readonly segments: readonly Segment[];
    };

const TAB_WIDTH = 4;
// Past this, word diffing costs more than it tells: the whole line is marked instead.
const MAX_WORD_DIFF_LENGTH = 400;
// Below this share of unchanged characters, highlighting words is noise: the line was rewritten.
const MIN_SIMILARITY = 0.4;

/**
 * Lays out a change for a screen `width` columns wide. `onlyHunk` restricts it to one hunk
 * (hunk-by-hunk review). A new file (oldText null) is its content with line numbers, no markers.
 */
export function layoutDiff(change: FileChange, width: number, onlyHunk?: number): ScreenLine[] {
  const isNewFile = change.oldText === null;
  const hunks = onlyHunk === undefined ? change.hunks : change.hunks.filter((hunk) => hunk.index === onlyHunk);
  const maxNo = Math.max(1, ...hunks.flatMap((hunk) => hunk.lines.map((line) => Math.max(line.oldNo ?? 0, line.newNo ?? 0))));
  const digits = String(maxNo).length;
  const gutterOf = (line: HunkLine) =>
    isNewFile
      ? `${String(line.newNo ?? '').padStart(digits)} `
      : `${String(line.oldNo ?? '').padStart(digits)} ${String(line.newNo ?? '').padStart(digits)} `;
  const gutterWidth = isNewFile ? digits + 1 : 2 * digits + 2;
  const markerWidth = isNewFile ? 0 : 2;
  // At least a few columns of text, however narrow the terminal: wrapping then merely gets tall.
  const textColumns = Math.max(4, width - gutterWidth - markerWidth);

  const screen: ScreenLine[] = [];
  for (const hunk of hunks) {
    if (!isNewFile) screen.push({kind: 'hunk', text: truncate(hunkHeader(hunk), Math.max(4, width))});
    const segments = wordSegments(hunk.lines);
    hunk.lines.forEach((line, index) => {
      const marker = isNewFile ? '' : line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  ';
      wrapSegments(segments[index]!, textColumns).forEach((part, row) => {
        screen.push({
          kind: 'line',
          type: line.kind,
          gutter: row === 0 ? gutterOf(line) : ' '.repeat(gutterWidth),
          marker: row === 0 ? marker : ' '.repeat(markerWidth),
          segments: part,
        });
      });
      // The line break is cut from what is drawn, so its loss or gain would look like no change.
      if (line.kind !== 'context' && !line.text.endsWith('\n')) {
        screen.push({kind: 'line', type: 'context', gutter: ' '.repeat(gutterWidth), marker: ' '.repeat(markerWidth), segments: [{text: '\\ No newline at end of file', changed: false}]});
      }
    });
  }
  return screen;
}

/**
 * Segments for each line of a hunk. In a run of removed lines followed by added lines, the
 * i-th removed line is paired with the i-th added line and their differing words are marked.
 */
function wordSegments(lines: readonly HunkLine[]): Segment[][] {
  const result: Segment[][] = lines.map((line) => [{text: clean(line.text), changed: false}]);
  let index = 0;
  while (index < lines.length) {
    if (lines[index]!.kind !== 'removed') {
      index++;
      continue;
    }
    const removedStart = index;
    while (index < lines.length && lines[index]!.kind === 'removed') index++;
    const addedStart = index;
    while (index < lines.length && lines[index]!.kind === 'added') index++;
    const pairs = Math.min(addedStart - removedStart, index - addedStart);
    for (let pair = 0; pair < pairs; pair++) {
      const words = pairWords(clean(lines[removedStart + pair]!.text), clean(lines[addedStart + pair]!.text));
      if (!words) continue;
      result[removedStart + pair] = words.removed;
      result[addedStart + pair] = words.added;
    }
  }
  return result;
}

function pairWords(before: string, after: string): {removed: Segment[]; added: Segment[]} | undefined {
  if (before.length > MAX_WORD_DIFF_LENGTH || after.length > MAX_WORD_DIFF_LENGTH) return undefined;
  const parts = diffWordsWithSpace(before, after);
  const common = parts.filter((part) => !part.added && !part.removed).reduce((sum, part) => sum + part.value.length, 0);
  if (common < MIN_SIMILARITY * Math.max(before.length, after.length)) return undefined;
  return {
    removed: whole(parts.filter((part) => !part.added).map((part) => ({text: part.value, changed: part.removed === true}))),
    added: whole(parts.filter((part) => !part.removed).map((part) => ({text: part.value, changed: part.added === true}))),
  };
}

/**
 * Segments that never cut a character in two: the word diff works on code points, so a skin
 * tone added to 👍 came out as its own segment, which the terminal then showed as nothing (the
 * thumb looked unchanged on both sides). Each character is changed if any of its code points
 * was, and runs of characters alike make the segments.
 */
function whole(segments: Segment[]): Segment[] {
  const text = segments.map((segment) => segment.text).join('');
  if (/^[\x00-\x7f]*$/.test(text)) return segments;
  const changed: boolean[] = [];
  for (const segment of segments) for (let unit = 0; unit < segment.text.length; unit++) changed.push(segment.changed);
  const out: Segment[] = [];
  for (let at = 0; at < text.length; ) {
    const end = nextBoundary(text, at);
    const isChanged = changed.slice(at, end).some(Boolean);
    const last = out.at(-1);
    if (last && last.changed === isChanged) out[out.length - 1] = {text: last.text + text.slice(at, end), changed: isChanged};
    else out.push({text: text.slice(at, end), changed: isChanged});
    at = end;
  }
  return out;
}

/**
 * Display form of a file line: terminator dropped, tabs expanded, and control and invisible
 * characters made visible, because a file's bytes must never reach the terminal as escape
 * sequences, nor hide what a line really says.
 */
export function clean(text: string): string {
  let out = '';
  for (const char of showInvisible(text.replace(/\r?\n$/, ''))) {
    if (char === '\t') out += ' '.repeat(TAB_WIDTH - (out.length % TAB_WIDTH));
    else if (char === '\r') out += '␍';
    else if (char < ' ' || (char >= '\u007f' && char <= '\u009f')) out += '·';
    else out += char;
  }
  return out;
}

/** Cuts a row of segments into screen lines of at most `width` columns. */
function wrapSegments(segments: readonly Segment[], width: number): Segment[][] {
  const rows: Segment[][] = [[]];
  let used = 0;
  for (const segment of segments) {
    let piece = '';
    for (const {segment: char} of graphemes(segment.text)) {
      const charCols = textWidth(char);
      if (used + charCols > width) {
        if (piece) rows.at(-1)!.push({text: piece, changed: segment.changed});
        rows.push([]);
        piece = '';
        used = 0;
      }
      piece += char;
      used += charCols;
    }
    if (piece) rows.at(-1)!.push({text: piece, changed: segment.changed});
  }
  return rows;
}
