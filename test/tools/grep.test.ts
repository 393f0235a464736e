import {execFileSync} from 'node:child_process';
import {mkdirSync, statfsSync, writeFileSync} from 'node:fs';
import {mkdir, mkdtemp, open, realpath, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {createGrepTool, type GrepArgs} from '../../source/tools/index.js';
import {findOnPath} from '../../source/tools/grep.js';
import {contextFor, never, useTempDirs} from './helpers.js';

const tempDir = useTempDirs();
const builtIn = createGrepTool({rgPath: null});
const rgPath = await findOnPath('rg');
// CI installs ripgrep (.ci/run). Without it the built-in search is still tested; the tests that
// compare it with ripgrep are skipped, and say why rather than fail or pass for nothing.
if (!rgPath) {
  console.warn('grep tests: ripgrep (rg) is not on PATH, so the tests comparing it with the built-in search are skipped; install it (apt-get install ripgrep) to run them.');
}
const withRg = test.skipIf(!rgPath);
const describeWithRg = describe.skipIf(!rgPath);

async function bothWays(root: string, args: GrepArgs): Promise<string> {
  const ctx = contextFor(root);
  const withRg = await createGrepTool({rgPath: rgPath!}).run(args, ctx, never);
  const without = await builtIn.run(args, ctx, never);
  expect(without.content).toBe(withRg.content);
  expect(without.detail).toEqual(withRg.detail);
  return withRg.content;
}

async function smallTree(): Promise<string> {
  const root = await tempDir();
  const files: Record<string, string | Buffer> = {
    'a.txt': 'hello world\nfoo\nhello again\nbar\n',
    'src/app.ts': 'const greeting = "Hello";\nexport function hello() {}\r\n',
    'src/deep/x.md': 'say hello\n',
    'build/out.js': 'hello from build\n',
    '.hidden/h.txt': 'hello hidden\n',
    'bin.dat': Buffer.from('hello\0binary\n'),
    'vendor/lib.ts': 'hello vendor\n',
    '.gitignore': 'build/\n',
    'src/.gitignore': '*.md\n!keep.md\n',
    'src/keep.md': 'hello kept\n',
    'long.txt': `hello ${'y'.repeat(600)}\n`,
  };
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), {recursive: true});
    await writeFile(path.join(root, name), content);
  }
  return root;
}

describe('grep (ripgrep and the built-in walker agree)', () => {
  withRg('path:line: text, .gitignore honoured at every level, hidden and binary files skipped', async () => {
    const root = await smallTree();
    const content = await bothWays(root, {pattern: 'hello'});
    expect(content).toBe(
      [
        'a.txt:1: hello world',
        'a.txt:3: hello again',
        `long.txt:1: hello ${'y'.repeat(494)} … [cut]`,
        'src/app.ts:2: export function hello() {}',
        'src/keep.md:1: hello kept',
        'vendor/lib.ts:1: hello vendor',
      ].join('\n'),
    );
  });

  withRg('context lines, ignore_case, glob, path', async () => {
    const root = await smallTree();
    expect(await bothWays(root, {pattern: 'again', context: 1})).toBe('a.txt-2- foo\na.txt:3: hello again\na.txt-4- bar');
    expect(await bothWays(root, {pattern: 'HELLO', ignore_case: true, glob: '*.ts'})).toBe(
      'src/app.ts:1: const greeting = "Hello";\nsrc/app.ts:2: export function hello() {}\nvendor/lib.ts:1: hello vendor',
    );
    expect(await bothWays(root, {pattern: 'hello', glob: '!vendor'})).not.toContain('vendor');
    expect(await bothWays(root, {pattern: 'hello', path: 'src'})).toBe('src/app.ts:2: export function hello() {}\nsrc/keep.md:1: hello kept');
    expect(await bothWays(root, {pattern: 'hello', path: 'src/app.ts'})).toBe('src/app.ts:2: export function hello() {}');
    expect(await bothWays(root, {pattern: 'nothing-matches-this'})).toBe('No matches for "nothing-matches-this" in the workspace.');
  });

  withRg('a glob that matches no file, or an empty directory, is no match, not a failure', async () => {
    // rg exits 2 when it searched no file at all; that once came back as "grep failed: check the regex".
    const root = await smallTree();
    await mkdir(path.join(root, 'empty'));
    expect(await bothWays(root, {pattern: 'hello', glob: '*.py'})).toBe('No matches for "hello" in the workspace.');
    expect(await bothWays(root, {pattern: 'hello', path: 'empty'})).toBe('No matches for "hello" in empty.');
  });

  test('a bad pattern is explained; a missing path too (built-in)', async () => {
    const root = await smallTree();
    const ctx = contextFor(root);
    expect(await builtIn.run({pattern: '(unclosed'}, ctx, never)).toMatchObject({isError: true, code: 'bad-pattern'});
    expect(await builtIn.run({pattern: 'x', path: 'nope'}, ctx, never)).toMatchObject({code: 'not-found'});
  });

  withRg('a bad pattern is explained (ripgrep)', async () => {
    const root = await smallTree();
    expect(await createGrepTool({rgPath: rgPath!}).run({pattern: '(unclosed'}, contextFor(root), never)).toMatchObject({isError: true, code: 'bad-pattern'});
  });

  test('a FIFO or a device is refused when named, skipped inside a directory: grep never hangs (built-in)', async () => {
    const root = await smallTree();
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const ctx = contextFor(root);
    expect(await builtIn.run({pattern: 'x', path: 'pipe'}, ctx, never)).toMatchObject({isError: true, code: 'special-file'});
    expect(await builtIn.run({pattern: 'x', path: '/dev/zero'}, ctx, never)).toMatchObject({isError: true, code: 'special-file'});
    expect((await builtIn.run({pattern: 'again'}, ctx, never)).content).toBe('a.txt:3: hello again');
  });

  withRg('a FIFO or a device is refused when named, skipped inside a directory (ripgrep)', async () => {
    const root = await smallTree();
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const ctx = contextFor(root);
    const rg = createGrepTool({rgPath: rgPath!});
    expect(await rg.run({pattern: 'x', path: 'pipe'}, ctx, never)).toMatchObject({isError: true, code: 'special-file'});
    expect(await rg.run({pattern: 'x', path: '/dev/zero'}, ctx, never)).toMatchObject({isError: true, code: 'special-file'});
    expect(await bothWays(root, {pattern: 'again'})).toBe('a.txt:3: hello again');
  });

  test('searching outside the workspace is flagged', async () => {
    const root = await smallTree();
    expect(await builtIn.isOutside({pattern: 'x', path: '..'}, contextFor(root))).toBe(true);
    expect(await builtIn.isOutside({pattern: 'x'}, contextFor(root))).toBe(false);
  });
});

/**
 * 50,000 file creations cost ~0.6 s on tmpfs and over 10 s on a busy disk; but each tiny file
 * takes a 4 KiB page there, and Docker's default /dev/shm is 64 MB, so only when it has room.
 */
function fastTempBase(): string {
  try {
    const {bavail, bsize} = statfsSync('/dev/shm');
    if (bavail * bsize > 1024 * 1024 * 1024) return '/dev/shm';
  } catch {
    // no /dev/shm here
  }
  return tmpdir();
}

describeWithRg('grep over a generated tree of 50,000 files', () => {
  let root: string;

  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(fastTempBase(), 'nib-grep-tree-')));
    writeFileSync(path.join(root, '.gitignore'), 'ignored-*/\n*.log\n');
    let n = 0;
    for (let top = 0; top < 50; top += 1) {
      for (let sub = 0; sub < 10; sub += 1) {
        const dir = path.join(root, top === 7 ? `ignored-${sub}` : `pkg${top}`, `mod${sub}`);
        mkdirSync(dir, {recursive: true});
        for (let file = 0; file < 100; file += 1) {
          n += 1;
          const needle = n % 97 === 0 ? `\nconst marker = "needle ${n}";` : '';
          const ext = n % 50 === 0 ? 'log' : 'ts';
          writeFileSync(path.join(dir, `f${file}.${ext}`), `// file ${n}\nexport const v${n} = ${n};${needle}\n`);
        }
      }
    }
  }, 120_000);

  afterAll(async () => {
    await rm(root, {recursive: true, force: true});
  });

  test('same results with and without rg, capped with a count of what was left out', async () => {
    const content = await bothWays(root, {pattern: 'needle \\d+'});
    const lines = content.split('\n');
    expect(lines.filter(line => line.includes(': const marker'))).toHaveLength(100);
    expect(lines.at(-1)).toMatch(/^\[100 of \d+ matching lines shown \(in 100 of \d+ files\); \d+ left out\./);
    expect(content).not.toContain('ignored-');
  }, 60_000);

  test('same results with a large cap and context', async () => {
    const content = await bothWays(root, {pattern: 'needle [0-9]*3"', context: 1, max_results: 1000});
    expect(content).toMatch(/^pkg\S+-2- export const v\d+ = \d+;\n/);
    expect(content).not.toContain('left out');
  }, 60_000);
});

/** Writes `megabytes` MiB of 64-byte lines (`line` + padding), then `last` as the final line. */
async function writeBigFile(file: string, megabytes: number, last: string, extra: (line: number) => string | null = () => null): Promise<number> {
  const handle = await open(file, 'w');
  let lineNumber = 0;
  try {
    for (let mib = 0; mib < megabytes; mib += 1) {
      const lines: string[] = [];
      for (let i = 0; i < 16_384; i += 1) {
        lineNumber += 1;
        lines.push((extra(lineNumber) ?? `line ${lineNumber}`).padEnd(63, '.'));
      }
      await handle.write(`${lines.join('\n')}\n`);
    }
    await handle.write(`${last}\n`);
  } finally {
    await handle.close();
  }
  return lineNumber + 1;
}

describe('files too large to read whole are streamed', () => {
  let root: string;
  let lastLine: number;

  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'nib-grep-big-')));
    lastLine = await writeBigFile(path.join(root, 'big.txt'), 200, 'the needle is on the last line');
  }, 120_000);

  afterAll(async () => {
    await rm(root, {recursive: true, force: true});
  });

  test('a match on the last line of a 200 MiB file is found by the built-in search', async () => {
    const result = await builtIn.run({pattern: 'needle'}, contextFor(root), never);
    expect(result.content).toBe(`big.txt:${lastLine}: the needle is on the last line`);
    expect(lastLine).toBe(200 * 16_384 + 1);
  }, 60_000);

  withRg('ripgrep finds the same, named as a file too', async () => {
    expect(await bothWays(root, {pattern: 'needle'})).toBe(`big.txt:${lastLine}: the needle is on the last line`);
    expect(await bothWays(root, {pattern: 'needle', path: 'big.txt', context: 1})).toBe(
      `big.txt-${lastLine - 1}- ${`line ${lastLine - 1}`.padEnd(63, '.')}\nbig.txt:${lastLine}: the needle is on the last line`,
    );
  }, 60_000);

  test('context across block boundaries, CRLF, a cap inside the file and a binary file: as if read whole', async () => {
    const dir = await tempDir();
    // Matches around the 1 MiB block edges (16,384 lines of 64 bytes), one with CRLF.
    const hits = new Set([3, 16_383, 16_384, 16_385, 32_768, 32_770, 49_152, 100_000, 130_000]);
    const crlf = `${'hit 32768'.padEnd(62, '.')}\r`;
    const last = await writeBigFile(path.join(dir, 'edges.txt'), 9, 'final hit', n => (n === 32_768 ? crlf : hits.has(n) ? `hit ${n}` : null));
    const ctx = contextFor(dir);
    const streamed = await builtIn.run({pattern: 'hit', context: 2, max_results: 6}, ctx, never);
    const lines = streamed.content.split('\n');
    expect(lines.filter(line => /^edges\.txt:\d+: /.test(line)).map(line => line.split(':')[1])).toEqual(['3', '16383', '16384', '16385', '32768', '32770']);
    expect(lines).toContain('edges.txt-16382- ' + 'line 16382'.padEnd(63, '.'));
    expect(lines).toContain(`edges.txt:32768: ${crlf.slice(0, -1)}`);
    expect(streamed.content).toMatch(/\[6 of 10 matching lines shown \(in 1 of 1 file\); 4 left out\./);
    expect(last).toBe(9 * 16_384 + 1);
    if (rgPath) {
      for (const args of [{pattern: 'hit', context: 2, max_results: 6}, {pattern: 'hit', context: 3}, {pattern: '^hit 1638[345]'}]) {
        await bothWays(dir, args);
      }
    }
    // A NUL byte deep in the file makes it binary, as for ripgrep: skipped.
    const handle = await open(path.join(dir, 'edges.txt'), 'r+');
    await handle.write(Buffer.from([0]), 0, 1, 5 * 1024 * 1024);
    await handle.close();
    expect((await builtIn.run({pattern: 'hit'}, ctx, never)).content).toBe('No matches for "hit" in the workspace.');
  }, 60_000);
});
