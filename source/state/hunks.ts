import {lineDiff, splitLines} from '../core/line-diff.js';
import type {Decision} from '../core/events.js';

/** One line of a hunk. `text` keeps its own line terminator (`\n`, `\r\n` or none at EOF). */
export type HunkLine = {
  readonly kind: 'context' | 'added' | 'removed';
  readonly text: string;
  /** 1-based line number in the old file; null for added lines. */
  readonly oldNo: number | null;
  /** 1-based line number in the new file; null for removed lines. */
  readonly newNo: number | null;
};

export type Hunk = {
  /** 0-based position of the hunk in the change. */
  readonly index: number;
  /** 0-based index of the hunk's first line in the old file: where rebuilding splices it in. */
  readonly oldFrom: number;
  /** As in a unified diff header: 1-based starts and line counts. */
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  readonly lines: readonly HunkLine[];
  readonly added: number;
  readonly removed: number;
};

/** A proposed change to one file, split into hunks. */
export type FileChange = {
  /** null: the file does not exist yet. */
  readonly oldText: string | null;
  readonly newText: string;
  readonly hunks: readonly Hunk[];
  readonly added: number;
  readonly removed: number;
};

const CONTEXT_LINES = 3;

/**
 * Diffs two versions of a file into hunks. Lines are compared with their terminators, so a
 * CRLF→LF change is a change, and rebuilding from hunks reproduces either side exactly.
 */
export function computeChange(oldText: string | null, newText: string, context = CONTEXT_LINES): FileChange {
  const oldLines = splitLines(oldText ?? '');
  const newLines = splitLines(newText);
  const ops: HunkLine[] = [];
  let oldNo = 1;
  let newNo = 1;
  for (const part of lineDiff(oldLines, newLines)) {
    for (const text of part.value) {
      if (part.added) ops.push({kind: 'added', text, oldNo: null, newNo: newNo++});
      else if (part.removed) ops.push({kind: 'removed', text, oldNo: oldNo++, newNo: null});
      else ops.push({kind: 'context', text, oldNo: oldNo++, newNo: newNo++});
    }
  }

  const hunks: Hunk[] = [];
  // Old and new lines before each op, counted once: a hunk counting them itself made a change of
  // thousands of hunks quadratic (a replace_all over a large file took a minute).
  let oldCount = 0;
  let newCount = 0;
  let counted = 0;
  for (const [first, last] of groupChanges(ops, context)) {
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, last + context);
    for (; counted < from; counted++) {
      if (ops[counted]!.kind !== 'added') oldCount++;
      if (ops[counted]!.kind !== 'removed') newCount++;
    }
    hunks.push(makeHunk(hunks.length, ops.slice(from, to + 1), oldCount, newCount));
  }
  return {
    oldText,
    newText,
    hunks,
    added: hunks.reduce((sum, hunk) => sum + hunk.added, 0),
    removed: hunks.reduce((sum, hunk) => sum + hunk.removed, 0),
  };
}

/** Index ranges [first, last] of changed ops, merged when their contexts would touch. */
function groupChanges(ops: readonly HunkLine[], context: number): Array<[number, number]> {
  const groups: Array<[number, number]> = [];
  ops.forEach((op, index) => {
    if (op.kind === 'context') return;
    const open = groups.at(-1);
    if (open && index - open[1] - 1 <= 2 * context) open[1] = index;
    else groups.push([index, index]);
  });
  return groups;
}

/** `oldFrom`, `newFrom`: the old and new lines before the hunk's first line. */
function makeHunk(index: number, lines: HunkLine[], oldFrom: number, newFrom: number): Hunk {
  const oldLines = lines.filter((line) => line.kind !== 'added').length;
  const newLines = lines.filter((line) => line.kind !== 'removed').length;
  return {
    index,
    oldFrom,
    // Unified diff convention: an empty side names the line before it (0 at the top of the file).
    oldStart: oldLines === 0 ? oldFrom : oldFrom + 1,
    oldLines,
    newStart: newLines === 0 ? newFrom : newFrom + 1,
    newLines,
    lines,
    added: lines.filter((line) => line.kind === 'added').length,
    removed: lines.filter((line) => line.kind === 'removed').length,
  };
}

/**
 * The old file with only the accepted hunks applied. Rejected hunks keep the old lines, and
 * every line keeps its own terminator, so nothing the person rejected leaks into the file.
 */
export function applyHunks(change: FileChange, accepted: ReadonlySet<number>): string {
  const oldLines = splitLines(change.oldText ?? '');
  const out: string[] = [];
  let cursor = 0;
  for (const hunk of change.hunks) {
    out.push(...oldLines.slice(cursor, hunk.oldFrom));
    const keep = accepted.has(hunk.index) ? 'removed' : 'added';
    for (const line of hunk.lines) if (line.kind !== keep) out.push(line.text);
    cursor = hunk.oldFrom + hunk.oldLines;
  }
  out.push(...oldLines.slice(cursor));
  return out.join('');
}

/** `@@ -40,7 +40,9 @@` */
export function hunkHeader(hunk: Hunk): string {
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
}

/** "hunk 2 of 3 (lines 40-52)", with the lines of the original file the hunk covers. */
export function describeHunk(hunk: Hunk, total: number): string {
  const where =
    hunk.oldLines === 0
      ? `after line ${hunk.oldStart}`
      : hunk.oldLines === 1
        ? `line ${hunk.oldStart}`
        : `lines ${hunk.oldStart}-${hunk.oldStart + hunk.oldLines - 1}`;
  return `hunk ${hunk.index + 1} of ${total} (${where})`;
}

const MAX_NOTE_LINES_PER_HUNK = 40;

/** The hunk as unified diff text, for the model (terminators normalised, long hunks cut). */
function formatHunk(hunk: Hunk): string {
  const marks = {context: ' ', added: '+', removed: '-'} as const;
  const body = hunk.lines.map((line) => marks[line.kind] + line.text.replace(/\r?\n$/, ''));
  const shown = body.slice(0, MAX_NOTE_LINES_PER_HUNK);
  if (body.length > shown.length) shown.push(`… ${body.length - shown.length} more lines`);
  return [hunkHeader(hunk), ...shown].join('\n');
}

/**
 * Tells the model which hunks of its change were rejected in hunk-by-hunk review, with the
 * rejected hunks themselves, so it does not try the same change again blindly.
 */
export function describeRejected(change: FileChange, accepted: ReadonlySet<number>): string {
  const total = change.hunks.length;
  const rejected = change.hunks.filter((hunk) => !accepted.has(hunk.index));
  if (rejected.length === 0) return `All ${total} hunks were accepted.`;
  const list = rejected.map((hunk) => describeHunk(hunk, total)).join(', ');
  return [
    `The person reviewed the change hunk by hunk and applied ${total - rejected.length} of ${total} hunks. ` +
      `Rejected (not written): ${list}. The file now contains only the accepted hunks.`,
    ...rejected.map(formatHunk),
  ].join('\n');
}

/**
 * The decision hunk-by-hunk review amounts to: everything accepted is a plain yes, nothing
 * accepted is a no, anything between is an edit carrying the rebuilt file and the note.
 */
export function decideHunks(change: FileChange, accepted: ReadonlySet<number>): Decision {
  const count = change.hunks.filter((hunk) => accepted.has(hunk.index)).length;
  if (count === change.hunks.length) return {kind: 'yes'};
  if (count === 0) return {kind: 'no', feedback: 'The person rejected every hunk of this change.'};
  return {kind: 'edit', text: applyHunks(change, accepted), note: describeRejected(change, accepted)};
}
