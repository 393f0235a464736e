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

/**
 * The records kept when the conversation goes back to before turn `turn` and the files stay
 * (/rewind of the conversation only): later turns' records are void, their numbers reused. The
 * first `before` among them still tells how the files were before the turns in between, which
 * changed nothing, so it stays as the last kept turn's when that turn has no record of its own.
 */
export function keptByConversationRewind(snapshots: readonly SnapshotRecord[], turn: number): SnapshotRecord[] {
  const kept = snapshots.filter(snapshot => snapshot.turn < turn);
  const carried = snapshots.find(snapshot => snapshot.phase === 'before' && snapshot.turn >= turn);
  if (carried && turn > 1 && !kept.some(snapshot => snapshot.turn === turn - 1)) kept.push({...carried, turn: turn - 1});
  return kept;
}
