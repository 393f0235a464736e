import {mkdir, readdir, readFile, stat, symlink, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {describe, expect, test} from 'vitest';
import {protectedOf} from '../../source/tools/fs/guards.js';
import {resolvePath, specialFileReason, writeAtomic} from '../../source/tools/fs/workspace.js';
import {useTempDirs} from './helpers.js';

const tempDir = useTempDirs();

describe('workspace confinement', () => {
  test('relative paths inside are inside; .. and absolute paths out are outside', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, 'src'));
    expect(await resolvePath(root, 'src/a.ts')).toMatchObject({outside: false, display: 'src/a.ts', real: path.join(root, 'src/a.ts')});
    expect((await resolvePath(root, '../x')).outside).toBe(true);
    expect((await resolvePath(root, 'src/../../x')).outside).toBe(true);
    expect((await resolvePath(root, 'src/../a.ts')).outside).toBe(false);
    expect((await resolvePath(root, '/etc/passwd')).outside).toBe(true);
    expect((await resolvePath(root, path.join(root, 'src'))).outside).toBe(false);
    expect((await resolvePath(root, '.')).display).toBe('.');
    expect((await resolvePath(root, '~/x')).outside).toBe(true);
  });

  test('a symlink inside pointing to a file outside is outside', async () => {
    const root = await tempDir();
    const elsewhere = await tempDir();
    await writeFile(path.join(elsewhere, 'secret'), 's');
    await symlink(path.join(elsewhere, 'secret'), path.join(root, 'innocent'));
    await symlink(elsewhere, path.join(root, 'dir-link'));
    expect((await resolvePath(root, 'innocent')).outside).toBe(true);
    // A file that does not exist yet, under a symlinked directory that leads out.
    expect((await resolvePath(root, 'dir-link/new/deeper.txt')).outside).toBe(true);
    expect((await resolvePath(root, 'dir-link/new/deeper.txt')).real).toBe(path.join(elsewhere, 'new/deeper.txt'));
  });

  test('a symlink inside pointing inside stays inside', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, 'target'), 't');
    await symlink('target', path.join(root, 'link'));
    expect(await resolvePath(root, 'link')).toMatchObject({outside: false, real: path.join(root, 'target')});
  });
});

describe('protectedOf', () => {
  test('paths in or at a version-control directory (any depth) or .nib/ and .mcp.json (workspace root), by name, case or symlink; other paths are not', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, '.git', 'hooks'), {recursive: true});
    await symlink(path.join(root, '.git'), path.join(root, 'innocent'));
    const cases: Record<string, string | null> = {
      '.git/config': '.git',
      '.git': '.git',
      './src/../.git/hooks/pre-commit': '.git',
      'vendor/lib/.git/config': '.git',
      '.GIT/config': '.GIT',
      'innocent/config': '.git',
      '.hg/hgrc': '.hg',
      '.svn/entries': '.svn',
      '.jj/repo/config.toml': '.jj',
      '.bzr/branch/branch.conf': '.bzr',
      'src/git.ts': null,
      '.github/workflows/ci.yml': null,
      '.gitignore': null,
      'docs/.gitkeep': null,
      '.nib/settings.local.json': '.nib',
      '.nib/commands/review.md': '.nib',
      '.NIB/settings.json': '.NIB',
      '.mcp.json': '.mcp.json',
      'src/.nib/notes.md': null,
      'docs/.mcp.json': null,
      '.nibrc': null,
    };
    const found = Object.fromEntries(await Promise.all(Object.keys(cases).map(async input => [input, protectedOf(root, await resolvePath(root, input))])));
    expect(found).toEqual(cases);
  });
});

describe('specialFileReason', () => {
  test('devices, kernel files and FIFOs are special; a regular file in /dev/shm (tmpfs) is not', async () => {
    const root = await tempDir();
    const file = path.join(root, 'f');
    await writeFile(file, 'x');
    const regular = await stat(file);
    expect(specialFileReason('/dev/zero', null)).toBe('a device file');
    expect(specialFileReason('/proc/self/environ', null)).toBe('a kernel pseudo-file');
    expect(specialFileReason('/dev/shm/work/a.ts', null)).toBeNull();
    expect(specialFileReason('/dev/shm/work/a.ts', regular)).toBeNull();
    expect(specialFileReason('/dev/shm/x', await stat('/dev/zero'))).toBe('a device file');
    expect(specialFileReason(file, regular)).toBeNull();
  });
});

describe('writeAtomic', () => {
  test('writes through a temp file and keeps a given mode', async () => {
    const root = await tempDir();
    const file = path.join(root, 'f');
    const written = await writeAtomic(file, Buffer.from('data'), {mode: 0o100750});
    expect(written.ok).toBe(true);
    expect(await readFile(file, 'utf8')).toBe('data');
    expect((await stat(file)).mode & 0o7777).toBe(0o750);
    expect(await readdir(root)).toEqual(['f']);
  });

  test('a file name at the 255-byte limit can still be written (the temp name is shortened)', async () => {
    const root = await tempDir();
    const file = path.join(root, `${'n'.repeat(251)}.txt`);
    const written = await writeAtomic(file, Buffer.from('long name'));
    expect(written.ok).toBe(true);
    expect(await readFile(file, 'utf8')).toBe('long name');
    expect(await readdir(root)).toEqual([path.basename(file)]);
  });

  test('a failure between temp write and rename leaves the original bytes and no temp file', async () => {
    const root = await tempDir();
    const file = path.join(root, 'f');
    await writeFile(file, 'original');
    let temp = '';
    const result = await writeAtomic(file, Buffer.from('replacement'), {
      beforeRename: async tempPath => {
        temp = tempPath;
        expect(await readFile(tempPath, 'utf8')).toBe('replacement');
        throw new Error('injected');
      },
    });
    expect(result).toMatchObject({ok: false, error: {code: 'io'}});
    expect(temp).not.toBe('');
    expect(await readFile(file, 'utf8')).toBe('original');
    expect(await readdir(root)).toEqual(['f']);
  });
});
