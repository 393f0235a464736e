import {readFile} from 'node:fs/promises';
import path from 'node:path';
import {afterEach, describe, expect, test, vi} from 'vitest';
import {createOutputForwarder, OutputKeeper} from '../../source/tools/output.js';
import {useTempDirs} from './helpers.js';

const tempDir = useTempDirs();

afterEach(() => {
  vi.useRealTimers();
});

describe('createOutputForwarder', () => {
  test('a character split across reads, with a tick between them, arrives whole', () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const forward = createOutputForwarder(chunk => sent.push(chunk), 10);
    const bytes = Buffer.from('aé', 'utf8');
    forward.write(bytes.subarray(0, 2));
    vi.advanceTimersByTime(20);
    forward.write(bytes.subarray(2));
    vi.advanceTimersByTime(20);
    forward.flush();
    expect(sent.join('')).toBe('aé');
  });
});

describe('OutputKeeper', () => {
  test('small output is kept whole; large output keeps head and tail and spills all of it', async () => {
    const small = new OutputKeeper(4, 4);
    small.push(Buffer.from('abcdefgh'));
    expect(small.render()).toBe('abcdefgh');

    const dir = await tempDir();
    const keeper = new OutputKeeper(4, 4, dir);
    for (const piece of ['head', '-middle-', 'tail']) keeper.push(Buffer.from(piece));
    await keeper.close();
    expect(keeper.render()).toBe(`head\n[… 8 bytes of output dropped; the full output is in ${keeper.spillPath} …]\ntail`);
    expect(await readFile(keeper.spillPath!, 'utf8')).toBe('head-middle-tail');
  });

  test('a spill file that cannot be opened wakes the paused producer and is named as unsaved', async () => {
    const keeper = new OutputKeeper(4, 4, path.join(await tempDir(), 'missing'));
    // More than the write stream buffers before asking the producer to wait.
    const line = Buffer.from(`${'x'.repeat(1023)}\n`);
    let ready = true;
    while (ready) ready = keeper.push(line);
    await new Promise<void>(resolve => keeper.onDrain(resolve));
    expect(keeper.push(line)).toBe(true);
    await keeper.close();
    expect(keeper.render()).toMatch(/; the full output could not be saved \(ENOENT[^)]*\) …\]\nxxx\n$/);
  });

  test('the spill file is masked too, even when a secret arrives split across chunks', async () => {
    const secret = 'sk-spill-0123456789';
    const keeper = new OutputKeeper(4, 4, await tempDir(), text => text.split(secret).join('[redacted]'));
    // One long line with the secret at many offsets, so some land on a 64 KiB flush point.
    const long = Array.from({length: 400}, (_, i) => `${'z'.repeat(i % 97)}${secret}`).join('');
    const output = `start\nkey=${secret}\n${'z'.repeat(70 * 1024)}${long}é\nend`;
    const bytes = Buffer.from(output);
    for (let at = 0; at < bytes.length; at += 7) keeper.push(bytes.subarray(at, at + 7));
    await keeper.close();
    const spilled = await readFile(keeper.spillPath!, 'utf8');
    expect(spilled).toBe(output.split(secret).join('[redacted]'));
  });

  test('a cut inside a multi-byte character drops the broken bytes at both ends', async () => {
    const keeper = new OutputKeeper(4, 4, await tempDir());
    keeper.push(Buffer.from('abcé---------éxyz', 'utf8'));
    await keeper.close();
    expect(keeper.render()).toMatch(/^abc\n\[… 11 bytes of output dropped; the full output is in .* …\]\nxyz$/);
  });

  test('the spill file keeps its own head and tail, from a line start, with a marker of what it dropped', async () => {
    const keeper = new OutputKeeper(4, 4, await tempDir(), text => text, {head: 12, tail: 10});
    const lines = Array.from({length: 100}, (_, i) => `line ${i}`).join('\n') + '\n';
    const bytes = Buffer.from(lines);
    for (let at = 0; at < bytes.length; at += 5) keeper.push(bytes.subarray(at, at + 5));
    await keeper.close();
    const spilled = await readFile(keeper.spillPath!, 'utf8');
    // The head is the first 12 bytes, "line 0\nline "; the last 10 are "8\nline 99\n", whose
    // broken first line is dropped too.
    const dropped = bytes.length - 12 - 'line 99\n'.length;
    expect(spilled).toBe(
      `line 0\nline \n[… ${dropped} bytes dropped here: nib keeps the first 12 B and the last 10 B of a command's output …]\nline 99\n`,
    );
    expect(keeper.render()).toMatch(/; the first 12 B and last 10 B are in .*nib-bash-\d+-[0-9a-f]+\.log …\]/);
  });

  test('a spill within both limits is whole and says "full output"', async () => {
    const keeper = new OutputKeeper(4, 4, await tempDir(), text => text, {head: 12, tail: 10});
    keeper.push(Buffer.from('0123456789abcdefghij'));
    await keeper.close();
    expect(await readFile(keeper.spillPath!, 'utf8')).toBe('0123456789abcdefghij');
    expect(keeper.render()).toContain('; the full output is in ');
  });
});
