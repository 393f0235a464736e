import {randomBytes} from 'node:crypto';
import {unlinkSync} from 'node:fs';
import {readdir, stat, unlink} from 'node:fs/promises';
import path from 'node:path';

/**
 * The temp files holding commands' full output. They belong to the nib that made them: it
 * deletes them when it exits, and a later nib deletes those a crashed one left (its pid is in the
 * name, so a live nib's files are never taken).
 */
const NAME = /^nib-bash-(?:(\d+)-)?[0-9a-f]+\.log$/;

/** Files of a dead nib younger than this are left alone: its pid may be another namespace's. */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

const made = new Set<string>();
let exitHookInstalled = false;

export function newSpillPath(dir: string): string {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Synchronous: 'exit' runs no asynchronous work.
    process.on('exit', () => {
      for (const file of made) {
        try {
          unlinkSync(file);
        } catch {
          // Already removed (or the temp dir went away): nothing to clean.
        }
      }
    });
  }
  const file = path.join(dir, `nib-bash-${process.pid}-${randomBytes(6).toString('hex')}.log`);
  made.add(file);
  return file;
}

/**
 * Deletes spill files in `dir` older than a day whose nib is gone (no pid in the name: an older
 * nib's). Returns the names removed. Never throws: cleaning up must not stop nib from starting.
 */
export async function sweepStaleSpills(dir: string, now = Date.now()): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = NAME.exec(name);
    if (!match) continue;
    const pid = match[1] === undefined ? null : Number(match[1]);
    if (pid === process.pid || (pid !== null && isAlive(pid))) continue;
    const file = path.join(dir, name);
    try {
      const stats = await stat(file);
      if (!stats.isFile() || now - stats.mtimeMs < STALE_AFTER_MS) continue;
      await unlink(file);
      removed.push(name);
    } catch {
      // Gone meanwhile, or another user's file in a shared /tmp.
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
