import {lineDiff, splitLines} from '../core/line-diff.js';

export type LineChanges = {added: number; removed: number};

/** Lines added and removed between two versions of a file, as the approval prompt's diff shows them. */
export function countLineChanges(oldText: string | null, newText: string): LineChanges {
  let added = 0;
  let removed = 0;
  for (const part of lineDiff(splitLines(oldText ?? ''), splitLines(newText))) {
    if (part.added) added += part.value.length;
    else if (part.removed) removed += part.value.length;
  }
  return {added, removed};
}

/** "+12 −3": the badge text for a change. */
export function formatChanges({added, removed}: LineChanges): string {
  return `+${added} −${removed}`;
}
