// edit on a 200,000-line file: milliseconds for preview and run (exact match), a tolerant match
// and a miss (which searches for the nearest line); then a replace_all of every 25th line, with
// the approval prompt's diff (state/hunks.ts computeChange). Median of 5. Printed, not asserted.
// The file (~6 MB) is over the 1 MiB write limit, so the tool is built with a larger one here.
// Run: npx node bench/edit.mjs   (esbuild bundles source/tools/index.ts on the fly)
import {mkdtemp, realpath, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {importSources, median} from './support.mjs';

const LINES = 200_000;
const RUNS = 5;
const work = await realpath(await mkdtemp(join(tmpdir(), 'nib-bench-edit-')));
try {
  const sources = await importSources({tools: 'source/tools/index.ts', hunks: 'source/state/hunks.ts'});
  const {createEditTool, createReadLedger, readTool} = sources.tools;
  const edit = createEditTool({maxBytes: 64 * 1024 * 1024});
  const signal = new AbortController().signal;
  const lines = Array.from({length: LINES}, (_, i) => `    const value${i} = compute(${i}, "item ${i}");`);
  const original = `${lines.join('\n')}\n`;
  const file = join(work, 'big.ts');
  console.log(`file: ${LINES.toLocaleString('en-US')} lines, ${(original.length / 1024 / 1024).toFixed(1)} MiB`);

  const target = Math.floor(LINES * 0.75);
  const cases = [
    ['exact', {old_string: `const value${target} = compute(${target}, "item ${target}");`, new_string: `const value${target} = 0;`}],
    ['tolerant (indentation)', {old_string: `const value${target} = compute(${target}, "item ${target}");\nconst value${target + 1}`, new_string: 'x'}],
    ['not found (near-miss search)', {old_string: `const value${target} = compute(${target}, "item ${target + 7}")`, new_string: 'x'}],
  ];
  for (const [name, args] of cases) {
    const previewMs = [];
    const runMs = [];
    let outcome = '';
    for (let run = 0; run < RUNS; run++) {
      await writeFile(file, original);
      const ctx = {root: work, ledger: createReadLedger()};
      await readTool.run({path: 'big.ts'}, ctx, signal);
      let started = performance.now();
      await edit.preview({path: 'big.ts', ...args}, ctx);
      previewMs.push(performance.now() - started);
      started = performance.now();
      const result = await edit.run({path: 'big.ts', ...args}, ctx, signal);
      runMs.push(performance.now() - started);
      outcome = result.isError ? result.code : result.detail.summary;
    }
    console.log(`edit ${name.padEnd(30)} preview ${median(previewMs).toFixed(1).padStart(7)} ms   run ${median(runMs).toFixed(1).padStart(7)} ms   (${outcome})`);
  }

  // A rename across the file: 8,000 changed lines, 8,000 hunks in the approval prompt.
  const renamed = `${lines.map((line, i) => (i % 25 === 0 ? line.replace('compute(', 'oldName(') : line)).join('\n')}\n`;
  const previewMs = [];
  const diffMs = [];
  let hunks = 0;
  for (let run = 0; run < RUNS; run++) {
    await writeFile(file, renamed);
    const ctx = {root: work, ledger: createReadLedger()};
    await readTool.run({path: 'big.ts'}, ctx, signal);
    let started = performance.now();
    const preview = await edit.preview({path: 'big.ts', old_string: 'oldName(', new_string: 'newName(', replace_all: true}, ctx);
    previewMs.push(performance.now() - started);
    started = performance.now();
    hunks = sources.hunks.computeChange(preview.file.oldText, preview.file.newText).hunks.length;
    diffMs.push(performance.now() - started);
  }
  console.log(`edit ${'replace_all (every 25th line)'.padEnd(30)} preview ${median(previewMs).toFixed(1).padStart(7)} ms   approval diff ${median(diffMs).toFixed(1).padStart(7)} ms   (${hunks} hunks)`);
} finally {
  await rm(work, {recursive: true, force: true});
}
