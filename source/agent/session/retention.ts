import {mkdir, readdir, rm, stat, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {sessionsRoot} from './log.js';
import {sessionFiles} from './saved.js';
import {pruneSnapshots} from './snapshots.js';

/**
 * Retention, once a day: session logs and snapshots not written for `retentionDays` go. Never
 * throws: housekeeping must not stop nib.
 */
export async function retainDaily(data: string, retentionDays: number): Promise<void> {
  // 0 keeps everything: nothing to do, and no mark to write.
  if (!(retentionDays > 0)) return;
  try {
    if (!(await pruneDue(data))) return;
    await pruneSessions(data, {retentionDays});
    void pruneSnapshots(data, {retentionDays}).catch(() => {});
  } catch {
    // Tried again tomorrow.
  }
}

/**
 * Deletes session logs of every workspace not written for `retentionDays` (0 or less keeps
 * everything). Returns the deleted ids.
 */
export async function pruneSessions(data: string, options: {retentionDays: number; now?: number}): Promise<string[]> {
  if (!(options.retentionDays > 0)) return [];
  const cutoff = (options.now ?? Date.now()) - options.retentionDays * 24 * 60 * 60 * 1000;
  const root = sessionsRoot(data);
  const workspaces = await readdir(root).catch(() => [] as string[]);
  const deleted: string[] = [];
  for (const workspace of workspaces) {
    for (const file of await sessionFiles(join(root, workspace))) {
      if (file.updated >= cutoff) continue;
      await rm(file.path, {force: true});
      deleted.push(file.id);
    }
  }
  return deleted;
}

/**
 * Whether retention is due: once a day, not at every start. Going through every session file cost
 * `nib -p` ~6 ms per hundred sessions before its first request (bench/startup.mjs). The mark is
 * set before the pruning, so a failing prune is not retried at every start either.
 */
export async function pruneDue(data: string, now = Date.now()): Promise<boolean> {
  const mark = join(data, 'pruned-at');
  const last = await stat(mark).then(info => info.mtimeMs, () => 0);
  if (now - last < 24 * 60 * 60 * 1000 && last <= now) return false;
  await mkdir(data, {recursive: true});
  await writeFile(mark, '');
  return true;
}
