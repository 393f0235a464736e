import {diffArrays} from 'diff';

export type LineChanges = {added: number; removed: number};

/** Lines with their terminators, as the approval prompt's diff compares them: a final line break gained or lost is a change there and here. */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * The diff's cost grows with the number of changed lines times itself: a replace_all that changed
 * 8,000 lines took 8 s, and the 1 MiB limit allows half a million. Past this many, the lines are
 * counted instead (about 70 ms at the cap, whatever the file).
 */
const MAX_EDIT_LENGTH = 1000;

/**
 * Lines added and removed between two versions of a file. The common head and tail are cut off
 * first: an edit touches a few lines of a file that may have 200,000, and the diff algorithm's
 * cost grows with the length of what it is given.
 */
export function countLineChanges(oldText: string | null, newText: string): LineChanges {
  const before = splitLines(oldText ?? '');
  const after = splitLines(newText);
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head += 1;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  ) {
    tail += 1;
  }
  const middleBefore = before.slice(head, before.length - tail);
  const middleAfter = after.slice(head, after.length - tail);
  if (middleBefore.length === 0 || middleAfter.length === 0) {
    return {added: middleAfter.length, removed: middleBefore.length};
  }
  const changes = diffArrays(middleBefore, middleAfter, {maxEditLength: MAX_EDIT_LENGTH});
  if (!changes) return countUnmatched(middleBefore, middleAfter);
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    if (change.added) added += change.count;
    else if (change.removed) removed += change.count;
  }
  return {added, removed};
}

/**
 * Lines of each side with no equal line left on the other, matched as a multiset: what the diff
 * says for edits that change lines in place (a replace_all), and never more than it says.
 */
function countUnmatched(before: readonly string[], after: readonly string[]): LineChanges {
  const unmatched = new Map<string, number>();
  for (const line of before) unmatched.set(line, (unmatched.get(line) ?? 0) + 1);
  let added = 0;
  for (const line of after) {
    const left = unmatched.get(line) ?? 0;
    if (left > 0) unmatched.set(line, left - 1);
    else added += 1;
  }
  return {added, removed: before.length - (after.length - added)};
}

/** "+12 −3": the badge text for a change. */
export function formatChanges({added, removed}: LineChanges): string {
  return `+${added} −${removed}`;
}
