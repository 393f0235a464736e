import {mkdir, symlink, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {execFileSync} from 'node:child_process';
import {describe, expect, test} from 'vitest';
import {createReadTool, readTool} from '../../source/tools/index.js';
import {contextFor, never, useTempDirs} from './helpers.js';

const tempDir = useTempDirs();

describe('read', () => {
  test('numbers lines cat -n style and records what it read', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, 'a.txt'), 'alpha\r\nbeta\ngamma');
    const ctx = contextFor(root);
    const result = await readTool.run({path: 'a.txt'}, ctx, never);
    expect(result.isError).toBe(false);
    expect(result.content).toBe('     1\talpha\n     2\tbeta\n     3\tgamma');
    expect(result.detail?.summary).toBe('read 3 lines');
    const record = ctx.ledger.get(path.join(root, 'a.txt'));
    expect(record?.size).toBe(17);
    expect(record?.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('offset and limit page through a file, with a note on how to read on', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, 'n.txt'), Array.from({length: 10}, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    const result = await readTool.run({path: 'n.txt', offset: 4, limit: 2}, contextFor(root), never);
    expect(result.content).toBe('     4\tline 4\n     5\tline 5\n\n[Showing lines 4–5 of 10. To read on, call read with offset=6.]');
    const ctx = contextFor(root);
    const past = await readTool.run({path: 'n.txt', offset: 11}, ctx, never);
    expect(past.code).toBe('offset-past-end');
    expect(past.content).toContain('10 lines');
    // It showed no line, so the file does not count as read for the stale-read guard.
    expect(ctx.ledger.size).toBe(0);
  });

  test('a 10 MB file returns the first page and the note', async () => {
    const root = await tempDir();
    const line = 'x'.repeat(99) + '\n';
    await writeFile(path.join(root, 'big.txt'), line.repeat(100_000));
    const result = await readTool.run({path: 'big.txt'}, contextFor(root), never);
    expect(result.isError).toBe(false);
    const lines = result.content.split('\n');
    expect(lines[0]).toBe(`     1\t${'x'.repeat(99)}`);
    expect(result.detail?.lines).toBe(2000);
    expect(result.content).toContain('[Showing lines 1–2000 of 100000. To read on, call read with offset=2001.]');
  });

  test('the byte cap stops a page of long lines early and says so', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, 'wide.txt'), ('y'.repeat(1500) + '\n').repeat(1000));
    const result = await readTool.run({path: 'wide.txt'}, contextFor(root), never);
    expect(result.content.length).toBeLessThan(260 * 1024);
    expect(result.content).toMatch(/\[Showing lines 1–\d+ of 1000 \(stopped at the 256 KiB page limit\)\. To read on, call read with offset=\d+\.\]$/);
  });

  test('lines longer than the limit are cut with a marker', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, 'long.txt'), 'z'.repeat(2500));
    const result = await readTool.run({path: 'long.txt'}, contextFor(root), never);
    expect(result.content).toBe(`     1\t${'z'.repeat(2000)} … [line cut: 500 more characters]`);
  });

  test('a long line across many chunks: cut once, counted exactly, CR and BOM not counted', async () => {
    const root = await tempDir();
    const long = 'q'.repeat(200_000);
    await writeFile(path.join(root, 'crlf.txt'), `\uFEFF${long}\r\nshort\r\n${long}`);
    const result = await readTool.run({path: 'crlf.txt'}, contextFor(root), never);
    const cut = `${'q'.repeat(2000)} … [line cut: 198000 more characters]`;
    expect(result.content).toBe(`     1\t${cut}\n     2\tshort\n     3\t${cut}`);
  });

  test('a 40 MB file on one line is read in one linear pass', {timeout: 10_000}, async () => {
    // Generous bound: the old reader re-split the growing line per 64 KiB chunk and took ~16 s here.
    const root = await tempDir();
    await writeFile(path.join(root, 'min.js'), 'm'.repeat(40_000_000));
    const result = await readTool.run({path: 'min.js'}, contextFor(root), never);
    expect(result.content).toBe(`     1\t${'m'.repeat(2000)} … [line cut: 39998000 more characters]`);
  });

  test('binary and non-UTF-8 files get clear refusals', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, 'bin.dat'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]));
    await writeFile(path.join(root, 'latin1.txt'), Buffer.from('caf\xe9\n', 'latin1'));
    const binary = await readTool.run({path: 'bin.dat'}, contextFor(root), never);
    expect(binary).toMatchObject({isError: true, code: 'binary'});
    expect(binary.content).toContain('binary file');
    const latin = await readTool.run({path: 'latin1.txt'}, contextFor(root), never);
    expect(latin).toMatchObject({isError: true, code: 'not-utf8'});
    expect(latin.content).toContain('not valid UTF-8');
  });

  test('an empty file, a missing file, a directory', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, 'empty'), '');
    await mkdir(path.join(root, 'dir', 'sub'), {recursive: true});
    await writeFile(path.join(root, 'dir', 'f.txt'), 'x');
    expect((await readTool.run({path: 'empty'}, contextFor(root), never)).content).toBe('empty is empty (0 bytes).');
    expect((await readTool.run({path: 'nope'}, contextFor(root), never)).code).toBe('not-found');
    const dir = await readTool.run({path: 'dir'}, contextFor(root), never);
    expect(dir.content).toBe('dir is a directory with 2 entries:\nf.txt\nsub/');
  });

  test('/dev/zero, /proc files and FIFOs are refused without hanging', async () => {
    const root = await tempDir();
    const ctx = contextFor(root);
    expect(await readTool.run({path: '/dev/zero'}, ctx, never)).toMatchObject({isError: true, code: 'special-file'});
    expect(await readTool.run({path: '/proc/self/status'}, ctx, never)).toMatchObject({code: 'special-file'});
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    expect(await readTool.run({path: 'pipe'}, ctx, never)).toMatchObject({code: 'special-file'});
    expect(await readTool.preview({path: '/dev/zero'}, ctx)).toMatchObject({isError: true, code: 'special-file'});
    await symlink('/dev/zero', path.join(root, 'zero-link'));
    expect(await readTool.run({path: 'zero-link'}, ctx, never)).toMatchObject({code: 'special-file'});
  });

  test('reading outside the workspace is flagged for approval', async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await writeFile(path.join(outside, 'secret.txt'), 's');
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    const ctx = contextFor(root);
    expect(await readTool.isOutside({path: 'link.txt'}, ctx)).toBe(true);
    expect(await readTool.isOutside({path: '../x'}, ctx)).toBe(true);
    expect(await readTool.isOutside({path: path.join(outside, 'secret.txt')}, ctx)).toBe(true);
    expect(await readTool.isOutside({path: 'sub/../inside.txt'}, ctx)).toBe(false);
    expect(await readTool.preview({path: 'link.txt'}, ctx)).toMatchObject({outside: true});
  });

  test('page limits are parameters of the factory', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, 'f'), 'a\nb\nc\n');
    const small = createReadTool({maxLines: 2});
    const result = await small.run({path: 'f'}, contextFor(root), never);
    expect(result.content).toBe('     1\ta\n     2\tb\n\n[Showing lines 1–2 of 3. To read on, call read with offset=3.]');
  });
});
