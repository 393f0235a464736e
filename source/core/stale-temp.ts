import {lstat, readdir, rm} from 'node:fs/promises';
import path from 'node:path';

/**
 * What nib leaves in the temp dir while it runs, each named with the pid of the nib that made it
 * (older nibs left the pid out). The nib that made one removes it when it exits or its session
 * closes; one killed before that (SIGKILL, a crash, a closed terminal) cannot, so the next nib
 * does, here.
 */
export const TEMP_NAMES = {
  /** A command's full output (source/tools/spill-files.ts). */
  spill: /^nib-bash-(?:(\d+)-)?[0-9a-f]+\.log$/,
  /** The sandbox's /tmp for the session's commands (source/agent/guard/sandbox.ts): a directory. */
  sandboxTmp: /^nib-sandbox-(?:(\d+)-)?[A-Za-z0-9]{6}$/,
} as const;

/** Entries of a dead nib younger than this are left alone: its pid may be another namespace's. */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

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
    const kind = TEMP_NAMES.spill.test(name) ? 'file' : TEMP_NAMES.sandboxTmp.test(name) ? 'directory' : null;
    if (kind === null) continue;
    const pid = /^nib-[a-z]+-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && (Number(pid) === process.pid || isAlive(Number(pid)))) continue;
    const entry = path.join(dir, name);
    try {
      // lstat: a symlink with one of these names is not followed, and is not ours.
      const stats = await lstat(entry);
      const isKind = kind === 'file' ? stats.isFile() : stats.isDirectory();
      if (!isKind || stats.uid !== process.getuid?.() || now - stats.mtimeMs < STALE_AFTER_MS) continue;
      await rm(entry, {recursive: kind === 'directory', force: true});
      removed.push(name);
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
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
