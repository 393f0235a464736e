import {chmod, mkdir, readdir, readFile, readlink, rename, rm, stat, symlink, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {describe, expect, test} from 'vitest';
import {createWriteTool, editTool, isPreview, readTool, writeTool} from '../../source/tools/index.js';
import {contextFor, never, useTempDirs} from './helpers.js';

const tempDir = useTempDirs();

describe('write', () => {
  test('creates a file and its parent directories', async () => {
    const root = await tempDir();
    const ctx = contextFor(root);
    const result = await writeTool.run({path: 'a/b/c.txt', content: 'one\ntwo\n'}, ctx, never);
    expect(result).toMatchObject({isError: false, content: 'Created a/b/c.txt (+2 −0 lines).'});
    expect(result.detail).toMatchObject({summary: '+2 −0', file: {path: 'a/b/c.txt', oldText: null, newText: 'one\ntwo\n'}});
    expect(await readFile(path.join(root, 'a/b/c.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  test('an interrupt that lands before the write creates nothing and says so, as edit does', async () => {
    const root = await tempDir();
    const result = await writeTool.run({path: 'new.txt', content: 'one\n'}, contextFor(root), AbortSignal.abort());
    expect(result).toMatchObject({isError: true, code: 'interrupted'});
    expect(await readdir(root)).toEqual([]);
  });

  test('overwriting a file not read in this session is refused with "read it first"', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, 'x.txt'), 'theirs\n');
    const ctx = contextFor(root);
    const refused = await writeTool.run({path: 'x.txt', content: 'mine\n'}, ctx, never);
    expect(refused).toMatchObject({isError: true, code: 'not-read'});
    expect(refused.content).toContain('read it first');
    expect(await readFile(path.join(root, 'x.txt'), 'utf8')).toBe('theirs\n');

    await readTool.run({path: 'x.txt'}, ctx, never);
    const updated = await writeTool.run({path: 'x.txt', content: 'mine\n'}, ctx, never);
    expect(updated.content).toBe('Updated x.txt (+1 −1 lines).');
    // Losing the final line break is a change of that line, as the approval diff shows it.
    await readTool.run({path: 'x.txt'}, ctx, never);
    const unterminated = await writeTool.run({path: 'x.txt', content: 'mine'}, ctx, never);
    expect(unterminated.content).toBe('Updated x.txt (+1 −1 lines).');
  });

  test('a stale file is refused', async () => {
    const root = await tempDir();
    const ctx = contextFor(root);
    await writeFile(path.join(root, 'x.txt'), 'v1\n');
    await readTool.run({path: 'x.txt'}, ctx, never);
    await writeFile(path.join(root, 'x.txt'), 'v2\n');
    expect(await writeTool.run({path: 'x.txt', content: 'mine\n'}, ctx, never)).toMatchObject({code: 'stale'});
    expect(await readFile(path.join(root, 'x.txt'), 'utf8')).toBe('v2\n');
  });

  test('content over the limit is refused with a clear message', async () => {
    const root = await tempDir();
    const result = await writeTool.run({path: 'big.txt', content: 'x'.repeat(1024 * 1024 + 1)}, contextFor(root), never);
    expect(result).toMatchObject({isError: true, code: 'too-large'});
    expect(result.content).toContain('would be 1.0 MiB, 1 byte over the 1 MiB limit');
    expect(await readdir(root)).toEqual([]);
    // "1.0 MiB, over the 1 MiB limit" alone read as a contradiction: how far over is said.
    const larger = await writeTool.run({path: 'big.txt', content: 'x'.repeat(Math.round(1.05 * 1024 * 1024))}, contextFor(root), never);
    expect(larger.content).toContain('would be 1.1 MiB, 52,429 bytes over the 1 MiB limit');
    const small = await createWriteTool({maxBytes: 1000}).run({path: 'big.txt', content: 'x'.repeat(1001)}, contextFor(root), never);
    expect(small.content).toContain('would be 1001 B, 1 byte over the 1000 B limit');
  });

  test('keeps the mode, the BOM and CRLF line breaks of an existing file', async () => {
    const root = await tempDir();
    const file = path.join(root, 'tool.sh');
    await writeFile(file, '\uFEFFecho 1\r\n');
    await chmod(file, 0o755);
    const ctx = contextFor(root);
    await readTool.run({path: 'tool.sh'}, ctx, never);
    const preview = await writeTool.preview({path: 'tool.sh', content: 'echo 2\necho 3\n'}, ctx);
    if (!isPreview(preview)) throw new Error(preview.content);
    expect(preview.file).toEqual({path: 'tool.sh', oldText: '\uFEFFecho 1\r\n', newText: '\uFEFFecho 2\r\necho 3\r\n'});
    await writeTool.run({path: 'tool.sh', content: 'echo 2\necho 3\n'}, ctx, never);
    expect(await readFile(file, 'utf8')).toBe(preview.file?.newText);
    expect((await stat(file)).mode & 0o777).toBe(0o755);
  });

  test('preview of a new file shows the whole content; editable is the content', async () => {
    const root = await tempDir();
    const preview = await writeTool.preview({path: 'n.txt', content: 'hi\n'}, contextFor(root));
    expect(preview).toEqual({
      title: 'write n.txt',
      outside: false,
      file: {path: 'n.txt', oldText: null, newText: 'hi\n'},
      editable: 'hi\n',
    });
    expect(await readdir(root)).toEqual([]);
  });

  test("runEdited writes the person's text as is", async () => {
    const root = await tempDir();
    const result = await writeTool.runEdited!({path: 'n.txt', content: 'model\n'}, 'person\r\n', contextFor(root), never);
    expect(result.content).toBe("Created n.txt with the person's edited version (+1 −0 lines).");
    expect(await readFile(path.join(root, 'n.txt'), 'utf8')).toBe('person\r\n');
  });

  test('writing through a symlink outside the workspace is flagged as outside', async () => {
    const root = await tempDir();
    const elsewhere = await tempDir();
    await symlink(elsewhere, path.join(root, 'out'));
    const ctx = contextFor(root);
    expect(await writeTool.isOutside({path: 'out/new.txt', content: 'x'}, ctx)).toBe(true);
    expect(await writeTool.isOutside({path: '../new.txt', content: 'x'}, ctx)).toBe(true);
    expect(await writeTool.isOutside({path: 'in/new.txt', content: 'x'}, ctx)).toBe(false);
    // The title names where the bytes would really land.
    const preview = await writeTool.preview({path: 'out/new.txt', content: 'x'}, ctx);
    expect(preview).toMatchObject({outside: true, title: `write ${path.join(elsewhere, 'new.txt')}`});
  });

  test('writing through a symlink inside the workspace updates the target and keeps the link', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, 'real'));
    await writeFile(path.join(root, 'real', 'f.txt'), 'old\n');
    await symlink('real/f.txt', path.join(root, 'link.txt'));
    const ctx = contextFor(root);
    await readTool.run({path: 'link.txt'}, ctx, never);
    const result = await writeTool.run({path: 'link.txt', content: 'new\n'}, ctx, never);
    expect(result.content).toBe('Updated real/f.txt (+1 −1 lines).');
    expect(await readFile(path.join(root, 'real', 'f.txt'), 'utf8')).toBe('new\n');
  });

  test('a symlink swapped in after the approval check is refused, not followed out of the workspace', async () => {
    // The race a loop swapping victim.txt between a file and a link won 18 times in 150: the
    // check saw a file inside, the run resolved the path again and wrote ../out/s.txt.
    const root = await tempDir();
    const elsewhere = await tempDir();
    const victim = path.join(root, 'victim.txt');
    const secret = path.join(elsewhere, 's.txt');
    await writeFile(secret, 'secret\n');
    const ctx = contextFor(root);
    await symlink(secret, victim);
    await readTool.run({path: 'victim.txt'}, ctx, never); // read while it led out: s.txt counts as read
    const swap = async (toLink: boolean) => {
      await rm(victim);
      await (toLink ? symlink(secret, victim) : writeFile(victim, 'secret\n'));
    };
    for (const [tool, args] of [
      [writeTool, {path: 'victim.txt', content: 'PWNED\n'}],
      [editTool, {path: 'victim.txt', old_string: 'secret', new_string: 'PWNED'}],
    ] as const) {
      await swap(false);
      expect(await tool.isOutside(args as never, ctx)).toBe(false); // what the approval judged
      await swap(true);
      const result = await tool.run(args as never, ctx, never);
      expect(result).toMatchObject({isError: true, code: 'path-changed'});
      expect(result.content).toContain('victim.txt changed after nib checked it (it is now a symbolic link)');
      expect(await readFile(secret, 'utf8')).toBe('secret\n');
    }
  });

  test('a link swapped in just before the rename is refused, and the link and its target are left alone', async () => {
    const root = await tempDir();
    const elsewhere = await tempDir();
    const secret = path.join(elsewhere, 's.txt');
    await writeFile(secret, 'secret\n');
    await writeFile(path.join(root, 'victim.txt'), 'mine\n');
    await mkdir(path.join(root, 'sub'));
    const ctx = contextFor(root);
    await readTool.run({path: 'victim.txt'}, ctx, never);
    const swapFile = createWriteTool({
      beforeRename: async () => {
        await rm(path.join(root, 'victim.txt'));
        await symlink(secret, path.join(root, 'victim.txt'));
      },
    });
    const file = await swapFile.run({path: 'victim.txt', content: 'PWNED\n'}, ctx, never);
    expect(file).toMatchObject({isError: true, code: 'path-changed'});
    expect(file.content).toContain(`(it now leads to ${secret})`);
    expect(await readlink(path.join(root, 'victim.txt'))).toBe(secret);
    expect(await readFile(secret, 'utf8')).toBe('secret\n');
    expect(await readdir(root)).toEqual(['sub', 'victim.txt']);

    // A parent directory swapped for a link that leads out.
    const swapDir = createWriteTool({
      beforeRename: async () => {
        await rename(path.join(root, 'sub'), path.join(root, 'sub.old'));
        await symlink(elsewhere, path.join(root, 'sub'));
      },
    });
    const dir = await swapDir.run({path: 'sub/new.txt', content: 'PWNED\n'}, ctx, never);
    expect(dir).toMatchObject({isError: true, code: 'path-changed'});
    expect(await readdir(elsewhere)).toEqual(['s.txt']);
  });

  test('a failure before the rename leaves the original and no temp file', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, 'x.txt'), 'keep me\n');
    const ctx = contextFor(root);
    await readTool.run({path: 'x.txt'}, ctx, never);
    const failing = createWriteTool({beforeRename: () => Promise.reject(new Error('ENOSPC: no space left'))});
    const result = await failing.run({path: 'x.txt', content: 'lost\n'}, ctx, never);
    expect(result).toMatchObject({isError: true, code: 'io'});
    expect(await readFile(path.join(root, 'x.txt'), 'utf8')).toBe('keep me\n');
    expect(await readdir(root)).toEqual(['x.txt']);
  });

  test('a directory is not a file', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, 'd'));
    expect(await writeTool.run({path: 'd', content: 'x'}, contextFor(root), never)).toMatchObject({code: 'is-directory'});
  });

  test('a path ending in "/" names a directory and is refused, not written as a file', async () => {
    // Resolving drops the slash: "newdir/" used to create a file named newdir.
    const root = await tempDir();
    const result = await writeTool.run({path: 'newdir/', content: 'x'}, contextFor(root), never);
    expect(result).toMatchObject({isError: true, code: 'is-directory'});
    expect(result.content).toBe('"newdir/" names a directory (it ends in "/"), not a file. Give the path of the file itself, such as "newdir/name.txt".');
    expect(await writeTool.run({path: 'a/..', content: 'x'}, contextFor(root), never)).toMatchObject({code: 'is-directory'});
    await writeFile(path.join(root, 'f.txt'), 'x\n');
    const ctx = contextFor(root);
    await readTool.run({path: 'f.txt'}, ctx, never);
    expect(await editTool.run({path: 'f.txt/', old_string: 'x', new_string: 'y'}, ctx, never)).toMatchObject({code: 'is-directory'});
    expect(await readdir(root)).toEqual(['f.txt']);
  });
});

// Tests run as root in CI, where access(W_OK) always passes: the no-write-bit rule is what these check.
describe('write permission', () => {
  test('a read-only (0444) file is refused by write and edit, before any approval, and keeps its bytes and mode', async () => {
    const root = await tempDir();
    const file = path.join(root, 'locked.txt');
    await writeFile(file, 'keep me\n');
    await chmod(file, 0o444);
    const ctx = contextFor(root);
    await readTool.run({path: 'locked.txt'}, ctx, never);

    const preview = await writeTool.preview({path: 'locked.txt', content: 'changed\n'}, ctx);
    expect(preview).toMatchObject({isError: true, code: 'read-only'});
    const written = await writeTool.run({path: 'locked.txt', content: 'changed\n'}, ctx, never);
    expect(written).toMatchObject({isError: true, code: 'read-only'});
    expect(written.content).toBe(
      'locked.txt is read-only: you have no write permission on it, so nib will not change it. If it should change, ask the person to make it writable first (chmod u+w).',
    );
    const edited = await editTool.run({path: 'locked.txt', old_string: 'keep', new_string: 'lose'}, ctx, never);
    expect(edited).toMatchObject({isError: true, code: 'read-only'});
    expect(await editTool.runEdited!({path: 'locked.txt', old_string: 'keep', new_string: 'lose'}, 'x\n', ctx, never)).toMatchObject({
      code: 'read-only',
    });

    expect(await readFile(file, 'utf8')).toBe('keep me\n');
    expect((await stat(file)).mode & 0o777).toBe(0o444);
    expect(await readdir(root)).toEqual(['locked.txt']);
  });

  test('a new file in a read-only directory (also a missing subdirectory of it) is refused', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, 'sealed'));
    await chmod(path.join(root, 'sealed'), 0o555);
    const ctx = contextFor(root);
    for (const target of ['sealed/new.txt', 'sealed/deeper/new.txt']) {
      const result = await writeTool.run({path: target, content: 'x\n'}, ctx, never);
      expect(result).toMatchObject({isError: true, code: 'read-only'});
      expect(result.content).toBe(
        `Cannot create ${target}: the directory ${path.join(root, 'sealed')} is not writable, so nib will not add files to it. Ask the person to change its permissions if it should.`,
      );
    }
    await chmod(path.join(root, 'sealed'), 0o755);
    expect(await readdir(path.join(root, 'sealed'))).toEqual([]);
  });

  test('a file in a read-only (0555) directory is refused before any approval, in words for a person', async () => {
    // The new version is written beside the file: as non-root this failed at the temp file, with
    // "EACCES: permission denied, open '.f.txt.nib-…'".
    const root = await tempDir();
    await mkdir(path.join(root, 'sealed'));
    await writeFile(path.join(root, 'sealed', 'f.txt'), 'keep\n');
    await chmod(path.join(root, 'sealed'), 0o555);
    const ctx = contextFor(root);
    await readTool.run({path: 'sealed/f.txt'}, ctx, never);
    for (const tool of [writeTool, editTool]) {
      const args = {path: 'sealed/f.txt', content: 'new\n', old_string: 'keep', new_string: 'new'};
      const preview = await tool.preview(args, ctx);
      expect(isPreview(preview)).toBe(false);
      const result = await tool.run(args, ctx, never);
      expect(result).toMatchObject({isError: true, code: 'read-only'});
      expect(result.content).toBe(
        `sealed/f.txt cannot be changed: its directory ${path.join(root, 'sealed')} is not writable, and nib replaces a file by writing the new version beside it and renaming it over. The file is unchanged. If it should change, ask the person to make the directory writable (chmod u+w).`,
      );
    }
    await chmod(path.join(root, 'sealed'), 0o755);
    expect(await readdir(path.join(root, 'sealed'))).toEqual(['f.txt']);
    expect(await readFile(path.join(root, 'sealed', 'f.txt'), 'utf8')).toBe('keep\n');
  });

  test('permission refused while writing is worded for a person, without the temp file name', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, 'f.txt'), 'keep\n');
    const ctx = contextFor(root);
    await readTool.run({path: 'f.txt'}, ctx, never);
    const denied = createWriteTool({
      beforeRename: temp => Promise.reject(Object.assign(new Error(`EACCES: permission denied, rename '${temp}'`), {code: 'EACCES'})),
    });
    const result = await denied.run({path: 'f.txt', content: 'new\n'}, ctx, never);
    expect(result).toMatchObject({isError: true, code: 'read-only'});
    expect(result.content).toBe(
      `Cannot write ${path.join(root, 'f.txt')}: the directory ${root} is not writable (permission denied), and nib writes the new version there first and renames it over. Nothing was written; the file is as it was.`,
    );
    expect(await readdir(root)).toEqual(['f.txt']);
  });

  test('a file writable by its owner only (0644, 0600) is still written', async () => {
    const root = await tempDir();
    const file = path.join(root, 'mine.txt');
    await writeFile(file, 'a\n');
    await chmod(file, 0o600);
    const ctx = contextFor(root);
    await readTool.run({path: 'mine.txt'}, ctx, never);
    expect(await writeTool.run({path: 'mine.txt', content: 'b\n'}, ctx, never)).toMatchObject({isError: false});
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
