import {diffArrays} from 'diff';

export type LineChanges = {added: number; removed: number};

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

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
  let added = 0;
  let removed = 0;
  for (const change of diffArrays(middleBefore, middleAfter)) {
    if (change.added) added += change.count;
    else if (change.removed) removed += change.count;
  }
  return {added, removed};
}

/** "+12 −3": the badge text for a change. */
export function formatChanges({added, removed}: LineChanges): string {
  return `+${added} −${removed}`;
}
