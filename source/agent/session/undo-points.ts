import type {SnapshotRecord} from './log.js';

/**
 * The id of a `before` record for a turn that may have changed files with no snapshot taken
 * (print mode in ask or plan takes none; taking one can fail). /undo and /rewind stop there:
 * restoring an earlier snapshot would also take that turn's changes back, unannounced.
 */
export const UNRECORDED = '';

/**
 * The `before` record /undo restores: the last one, or the first from turn `turn` on. A turn that
 * changed nothing took none, and before it the files were as before the next one that did.
 */
export function undoSnapshot(snapshots: readonly SnapshotRecord[], turn?: number): SnapshotRecord | undefined {
  const befores = snapshots.filter(snapshot => snapshot.phase === 'before');
  return turn === undefined ? befores.at(-1) : befores.find(snapshot => snapshot.turn >= turn);
}

/** Whether the files of before turn `turn` can come back: a later change was recorded, and no unrecorded one comes first. */
export function canRestore(snapshots: readonly SnapshotRecord[], turn: number): boolean {
  const target = undoSnapshot(snapshots, turn);
  return target !== undefined && target.id !== UNRECORDED;
}
