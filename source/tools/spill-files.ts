import {randomBytes} from 'node:crypto';
import {unlinkSync} from 'node:fs';
import path from 'node:path';
import {tempPrefix} from '../core/stale-temp.js';

/**
 * The temp files holding commands' full output. They belong to the nib that made them: it
 * deletes them when it exits, and a later nib deletes those a killed one left
 * (source/core/stale-temp.ts: the pid in the name keeps a live nib's files from being taken).
 */
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
  const file = path.join(dir, `${tempPrefix('spill')}${randomBytes(6).toString('hex')}.log`);
  made.add(file);
  return file;
}
