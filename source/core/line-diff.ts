import {diffArrays} from 'diff';

/**
 * The line diff the approval prompt draws (state/hunks.ts) and the tools count (tools/diff.ts),
 * one computation so the two always agree. Pure.
 */

/** Lines with their terminators, so joining them gives the text back byte for byte and a final line break gained or lost is a change. */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

export type LinePart = {readonly value: readonly string[]; readonly added?: boolean; readonly removed?: boolean};

/**
 * The diff's cost grows with the number of changed lines times itself: a replace_all that changed
 * 8,000 lines of a 200,000-line file took 30 s. Past this many edits the lines are paired instead.
 */
const MAX_EDIT_LENGTH = 1000;

/**
 * Runs of unchanged, removed and added lines. The common start and end are cut off first (an edit
 * touches a few lines of a file that may have 200,000); past MAX_EDIT_LENGTH edits, the lines
 * between are paired by position when both sides have as many (edits in place, which is what such
 * a change is), or shown as all removed and all added.
 */
export function lineDiff(before: readonly string[], after: readonly string[]): LinePart[] {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const oldMiddle = before.slice(head, before.length - tail);
  const newMiddle = after.slice(head, after.length - tail);
  const middle: LinePart[] =
    oldMiddle.length === 0 || newMiddle.length === 0
      ? [{value: oldMiddle, removed: true}, {value: newMiddle, added: true}]
      : (diffArrays(oldMiddle, newMiddle, {maxEditLength: MAX_EDIT_LENGTH}) ?? paired(oldMiddle, newMiddle));
  return [{value: before.slice(0, head)}, ...middle, {value: before.slice(before.length - tail)}].filter(part => part.value.length > 0);
}

function paired(before: readonly string[], after: readonly string[]): LinePart[] {
  if (before.length !== after.length) return [{value: before, removed: true}, {value: after, added: true}];
  return before.flatMap((line, at) => (line === after[at] ? [{value: [line]}] : [{value: [line], removed: true}, {value: [after[at]!], added: true}]));
}
