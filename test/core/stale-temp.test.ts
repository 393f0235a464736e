import {spawnSync} from 'node:child_process';
import {chown, mkdir, readdir, symlink, utimes, writeFile} from 'node:fs/promises';
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
      recent: `nib-sandbox-${dead}-Zz00Zz`,
      live: `nib-sandbox-${process.pid}-Qq11Qq`,
      // Somebody's own directories: without a pid in the name nothing says a nib made them.
      backup: 'nib-sandbox-backup',
      unit: 'nib-sandbox-unit-aB3dEf',
    };
    for (const name of Object.values(dirs)) {
      await mkdir(path.join(dir, name, 'build', 'deep'), {recursive: true});
      await writeFile(path.join(dir, name, 'build', 'deep', 'out.o'), 'x');
      if (name !== dirs.recent) await utimes(path.join(dir, name), twoDaysAgo, twoDaysAgo);
    }
    // A file or a symlink with a sandbox dir's name is not one: neither is touched, nor followed
    // (the directory it points to is old enough to be taken, were it followed).
    const target = await tempDir();
    await writeFile(path.join(target, 'keep.txt'), 'x');
    await utimes(target, twoDaysAgo, twoDaysAgo);
    await symlink(target, path.join(dir, `nib-sandbox-${dead}-Ln1kLn`));
    await writeFile(path.join(dir, `nib-sandbox-${dead}-F1leF1`), 'x');
    await utimes(path.join(dir, `nib-sandbox-${dead}-F1leF1`), twoDaysAgo, twoDaysAgo);

    expect(await sweepStaleTemp(dir)).toEqual([dirs.stale]);
    expect((await readdir(dir)).sort()).toEqual(
      [dirs.backup, dirs.live, dirs.recent, dirs.unit, `nib-sandbox-${dead}-F1leF1`, `nib-sandbox-${dead}-Ln1kLn`].sort(),
    );
    expect(await readdir(target)).toEqual(['keep.txt']);
  });

  // Only root can give an entry to another user; elsewhere the uid check has nothing to meet.
  test.runIf(process.getuid?.() === 0)('leaves another user’s entries alone', async () => {
    const dir = await tempDir();
    const dead = deadPid();
    const names = [`nib-bash-${dead}-0123456789ab.log`, `nib-sandbox-${dead}-Ab12Cd`];
    await writeFile(path.join(dir, names[0]!), 'x');
    await mkdir(path.join(dir, names[1]!));
    for (const name of names) {
      await chown(path.join(dir, name), 65534, 65534);
      await utimes(path.join(dir, name), twoDaysAgo, twoDaysAgo);
    }
    expect(await sweepStaleTemp(dir)).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual([...names].sort());
  });

  test('a missing directory is not an error', async () => {
    expect(await sweepStaleTemp(path.join(await tempDir(), 'missing'))).toEqual([]);
  });
});

describe('removeTree', () => {
  // rm -rf cannot empty a directory its owner made read-only; root can, so the removal runs as an
  // ordinary user (nobody) when the tests run as root.
  test('removes a tree with read-only directories in it, and never follows a symlink', async () => {
    const keep = await tempDir();
    await writeFile(path.join(keep, 'keep.txt'), 'x');
    // Loaded before the switch: the checkout may be in a directory nobody cannot enter.
    const script = `
      import {chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync} from 'node:fs';
      import {tmpdir} from 'node:os';
      import {join} from 'node:path';
      const {removeTree} = await import(${JSON.stringify(path.resolve('source/core/stale-temp.ts'))});
      const dir = mkdtempSync(join(tmpdir(), 'nib-remove-tree-'));
      if (process.getuid() === 0) { chownSync(dir, 65534, 65534); process.setgid(65534); process.setuid(65534); }
      mkdirSync(join(dir, 'pkg', 'mod', 'lib'), {recursive: true});
      writeFileSync(join(dir, 'pkg', 'mod', 'lib', 'a.go'), 'x');
      symlinkSync(${JSON.stringify(keep)}, join(dir, 'pkg', 'link'));
      chmodSync(join(dir, 'pkg', 'mod', 'lib'), 0o555);
      chmodSync(join(dir, 'pkg', 'mod'), 0o555);
      await removeTree(dir);
      console.log(existsSync(dir) ? 'left' : 'gone');
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8'});
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('gone');
    expect(await readdir(keep)).toEqual(['keep.txt']);
  });
});
