import {chmod, lstat, readdir, rm} from 'node:fs/promises';
import path from 'node:path';

/**
 * What nib leaves in the temp dir while it runs, each named with the pid of the nib that made it.
 * The nib that made one removes it when it exits or its session closes; one killed before that
 * (SIGKILL, a crash, a closed terminal) cannot, so the next nib does, here.
 */
const TEMP_NAMES = {
  /** A command's full output (source/tools/spill-files.ts); older nibs left the pid out. */
  spill: {prefix: 'nib-bash', name: /^nib-bash-(?:(\d+)-)?[0-9a-f]+\.log$/, kind: 'file'},
  /**
   * The sandbox's /tmp for the session's commands (source/agent/guard/sandbox.ts): a directory,
   * removed whole, so only with the pid in its name (a `nib-sandbox-backup` is somebody's own).
   */
  sandboxTmp: {prefix: 'nib-sandbox', name: /^nib-sandbox-(\d+)-[A-Za-z0-9]{6}$/, kind: 'directory'},
} as const;

/** How this process starts the name of its `kind` of entry (the maker adds the rest, as TEMP_NAMES reads it). */
export function tempPrefix(kind: keyof typeof TEMP_NAMES): string {
  return `${TEMP_NAMES[kind].prefix}-${process.pid}-`;
}

/**
 * Entries of a dead nib younger than this are left alone: its pid may be another pid namespace's
 * (a container sharing /tmp, or a nib inside nib's own sandbox). A live session's sandbox /tmp is
 * touched every hour (KEEP_FRESH_MS), so its age is the time since its nib last touched it.
 */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;
export const KEEP_FRESH_MS = 60 * 60 * 1000;

/**
 * Removes from `dir` what a nib that is gone left there ({@link TEMP_NAMES}), when it is older
 * than a day and belongs to this user. Returns the names removed. Never throws: cleaning up must
 * not stop nib from starting.
 */
export async function sweepStaleTemp(dir: string, now = Date.now()): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const known = Object.values(TEMP_NAMES).find(entry => entry.name.test(name));
    if (!known) continue;
    const {kind} = known;
    const pid = known.name.exec(name)![1];
    if (pid !== undefined && (Number(pid) === process.pid || isAlive(Number(pid)))) continue;
    const entry = path.join(dir, name);
    try {
      // lstat: a symlink with one of these names is not followed, and is not ours.
      const stats = await lstat(entry);
      const isKind = kind === 'file' ? stats.isFile() : stats.isDirectory();
      const uid = process.getuid?.();
      if (!isKind || (uid !== undefined && stats.uid !== uid) || now - stats.mtimeMs < STALE_AFTER_MS) continue;
      if (kind === 'file') await rm(entry, {force: true});
      else await removeTree(entry);
      removed.push(name);
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
}

/**
 * Removes a directory nib made, with what commands left in it: a directory they made read-only
 * (`chmod -w`, a Go module cache) is made writable first, as `rm -rf` cannot empty it otherwise.
 * Symlinks are removed, never followed.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, {recursive: true, force: true});
  } catch {
    await makeWritable(dir);
    await rm(dir, {recursive: true, force: true});
  }
}

async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o700).catch(() => undefined);
  const entries = await readdir(dir, {withFileTypes: true}).catch(() => []);
  for (const entry of entries) if (entry.isDirectory()) await makeWritable(path.join(dir, entry.name));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but is not ours to signal, so it is alive.
    return (error as {code?: string}).code === 'EPERM';
  }
}
