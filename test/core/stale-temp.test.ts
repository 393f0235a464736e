import {spawnSync} from 'node:child_process';
import {mkdir, readdir, symlink, utimes, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {describe, expect, test} from 'vitest';
import {sweepStaleTemp} from '../../source/core/stale-temp.js';
import {useTempDirs} from '../tools/helpers.js';

const tempDir = useTempDirs();

/** A pid that surely belongs to no process now: one that just exited (and was reaped). */
function deadPid(): number {
  return Number(spawnSync('sh', ['-c', 'echo $$'], {encoding: 'utf8'}).stdout.trim());
}

const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);

describe('sweepStaleTemp', () => {
  test('removes a dead nib’s spill files older than a day; keeps live, recent and foreign files', async () => {
    const dir = await tempDir();
    const dead = deadPid();
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
    expect((await sweepStaleTemp(dir)).sort()).toEqual([files.legacy, files.stale].sort());
    expect((await readdir(dir)).sort()).toEqual([files.init, files.live, files.other, files.recent].sort());
  });

  test('removes a killed session’s sandbox /tmp with what its commands left in it; keeps live, recent and look-alike ones', async () => {
    const dir = await tempDir();
    const dead = deadPid();
    const dirs = {
      stale: `nib-sandbox-${dead}-Ab12Cd`,
      legacy: 'nib-sandbox-xY9zQ1',
      recent: `nib-sandbox-${dead}-Zz00Zz`,
      live: `nib-sandbox-${process.pid}-Qq11Qq`,
      other: 'nib-sandbox-unit-aB3dEf',
    };
    for (const name of Object.values(dirs)) {
      await mkdir(path.join(dir, name, 'build', 'deep'), {recursive: true});
      await writeFile(path.join(dir, name, 'build', 'deep', 'out.o'), 'x');
      if (name !== dirs.recent) await utimes(path.join(dir, name), twoDaysAgo, twoDaysAgo);
    }
    // A file or a symlink with a sandbox dir's name is not one: neither is touched, nor followed.
    const target = await tempDir();
    await writeFile(path.join(target, 'keep.txt'), 'x');
    await symlink(target, path.join(dir, `nib-sandbox-${dead}-Ln1kLn`));
    await writeFile(path.join(dir, `nib-sandbox-${dead}-F1leF1`), 'x');
    await utimes(path.join(dir, `nib-sandbox-${dead}-F1leF1`), twoDaysAgo, twoDaysAgo);

    expect((await sweepStaleTemp(dir)).sort()).toEqual([dirs.legacy, dirs.stale].sort());
    expect((await readdir(dir)).sort()).toEqual(
      [dirs.live, dirs.other, dirs.recent, `nib-sandbox-${dead}-F1leF1`, `nib-sandbox-${dead}-Ln1kLn`].sort(),
    );
    expect(await readdir(target)).toEqual(['keep.txt']);
  });

  test('a missing directory is not an error', async () => {
    expect(await sweepStaleTemp(path.join(await tempDir(), 'missing'))).toEqual([]);
  });
});
