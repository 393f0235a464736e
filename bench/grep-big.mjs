// grep on one generated 200 MiB file whose only match is its last line: the built-in search
// (streamed) and ripgrep, time and peak memory (max RSS) of each, each in its own process.
// Baseline, measured in the same run: reading the file whole and testing the regex on it, which is
// what the built-in search did for files under its old 64 MiB cap. Printed, not asserted.
// Run: npx node bench/grep-big.mjs   (NIB_BENCH_MIB=400 for a bigger file)
import {spawnSync} from 'node:child_process';
import {open, mkdtemp, readFile, realpath, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {importSources} from './support.mjs';

const mode = process.argv[2];
if (mode) {
  // Child: one search, then its own figures on stdout.
  const [file, dir] = process.argv.slice(3);
  const started = performance.now();
  let found;
  if (mode === 'whole') {
    found = /needle/m.test((await readFile(file)).toString('utf8'));
  } else {
    const {createGrepTool, findOnPath} = (await importSources({grep: 'source/tools/grep.ts'})).grep;
    const rgPath = mode === 'rg' ? await findOnPath('rg') : null;
    if (mode === 'rg' && !rgPath) {
      console.log(JSON.stringify({skipped: 'rg not on PATH'}));
      process.exit(0);
    }
    const before = performance.now();
    const result = await createGrepTool({rgPath}).run({pattern: 'needle'}, {root: dir, ledger: new Map()}, new AbortController().signal);
    found = result.content.includes('needle is on the last line');
    console.error(`${mode}: bundling took ${Math.round(before - started)} ms (not counted)`);
    const ms = performance.now() - before;
    console.log(JSON.stringify({ms, rssMiB: process.resourceUsage().maxRSS / 1024, found}));
    process.exit(0);
  }
  console.log(JSON.stringify({ms: performance.now() - started, rssMiB: process.resourceUsage().maxRSS / 1024, found}));
  process.exit(0);
}

const work = await realpath(await mkdtemp(join(tmpdir(), 'nib-bench-grep-big-')));
try {
  const file = join(work, 'big.txt');
  const handle = await open(file, 'w');
  const block = `${Array.from({length: 16_384}, (_, i) => `line ${i}`.padEnd(63, '.')).join('\n')}\n`;
  const mebibytes = Number(process.env.NIB_BENCH_MIB ?? 200);
  console.log(`file: ${mebibytes} MiB of 64-byte lines, the only match on the last line`);
  for (let mib = 0; mib < mebibytes; mib++) await handle.write(block);
  await handle.write('the needle is on the last line\n');
  await handle.close();
  const self = fileURLToPath(import.meta.url);
  for (const which of ['whole', 'built-in', 'rg']) {
    const child = spawnSync(process.execPath, [self, which, file, work], {encoding: 'utf8', cwd: fileURLToPath(new URL('..', import.meta.url))});
    if (child.status !== 0) throw new Error(`${which} failed: ${child.stderr}`);
    const figures = JSON.parse(child.stdout.trim().split('\n').at(-1));
    const label = {whole: 'baseline: read whole + regex', 'built-in': 'built-in grep (streamed)', rg: 'ripgrep via grep tool'}[which];
    console.log(
      figures.skipped
        ? `${label.padEnd(30)} skipped: ${figures.skipped}`
        : `${label.padEnd(30)} ${String(Math.round(figures.ms)).padStart(6)} ms  max RSS ${String(Math.round(figures.rssMiB)).padStart(5)} MiB  found: ${figures.found}`,
    );
  }
} finally {
  await rm(work, {recursive: true, force: true});
}
