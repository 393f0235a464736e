import {spawnSync} from 'node:child_process';
import {readdir, utimes, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {describe, expect, test} from 'vitest';
import {sweepStaleSpills} from '../../source/tools/spill-files.js';
import {useTempDirs} from './helpers.js';

const tempDir = useTempDirs();

/** A pid that surely belongs to no process now: one that just exited (and was reaped). */
function deadPid(): number {
  return Number(spawnSync('sh', ['-c', 'echo $$'], {encoding: 'utf8'}).stdout.trim());
}

describe('sweepStaleSpills', () => {
  test('removes a dead nib’s spill files older than a day; keeps live, recent and foreign files', async () => {
    const dir = await tempDir();
    const dead = deadPid();
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    const files = {
      stale: `nib-bash-${dead}-0123456789ab.log`,
      legacy: 'nib-bash-a1b2c3d4e5f6.log',
      recent: `nib-bash-${dead}-aaaaaaaaaaaa.log`,
      live: `nib-bash-${process.pid}-bbbbbbbbbbbb.log`,
      init: 'nib-bash-1-cccccccccccc.log',
      other: 'notes.log',
    };
    for (const name of Object.values(files)) {
      await writeFile(path.join(dir, name), 'x');
      if (name !== files.recent) await utimes(path.join(dir, name), twoDaysAgo, twoDaysAgo);
    }
    expect((await sweepStaleSpills(dir)).sort()).toEqual([files.legacy, files.stale].sort());
    expect((await readdir(dir)).sort()).toEqual([files.init, files.live, files.other, files.recent].sort());
  });

  test('a missing directory is not an error', async () => {
    expect(await sweepStaleSpills(path.join(await tempDir(), 'missing'))).toEqual([]);
  });
});
