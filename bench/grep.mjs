// grep on a generated 50,000-file tree: the built-in walker against ripgrep, median of 5 runs each,
// and the ratio (goal: built-in within 5x of rg). Printed, not asserted.
// Run: npx node bench/grep.mjs   (esbuild bundles source/tools/grep.ts on the fly)
import {mkdirSync, writeFileSync} from 'node:fs';
import {rm} from 'node:fs/promises';
import {join} from 'node:path';
import {importSources, median, treeDir} from './support.mjs';

const RUNS = 5;
const work = await treeDir('nib-bench-grep-');
try {
  const {createGrepTool, findOnPath} = (await importSources({grep: 'source/tools/grep.ts'})).grep;
  const rg = await findOnPath('rg');
  if (!rg) throw new Error('ripgrep (rg) is not on PATH: apt-get install ripgrep');

  // 500 directories x 100 files of three short lines; one file in 97 holds the needle.
  const tree = join(work, 'tree');
  let started = performance.now();
  let n = 0;
  for (let top = 0; top < 50; top++) {
    for (let sub = 0; sub < 10; sub++) {
      const dir = join(tree, `pkg${top}`, `mod${sub}`);
      mkdirSync(dir, {recursive: true});
      for (let file = 0; file < 100; file++) {
        n++;
        const needle = n % 97 === 0 ? `\nconst marker = "needle ${n}";` : '';
        writeFileSync(join(dir, `f${file}.ts`), `// file ${n}\nexport const v${n} = ${n};${needle}\n`);
      }
    }
  }
  console.log(`tree: ${n} files generated in ${Math.round(performance.now() - started)} ms`);

  const ctx = {root: tree, ledger: new Map()};
  const signal = new AbortController().signal;
  const time = async (tool, args) => {
    const samples = [];
    let content = '';
    for (let run = 0; run < RUNS; run++) {
      started = performance.now();
      content = (await tool.run(args, ctx, signal)).content;
      samples.push(performance.now() - started);
    }
    return {ms: median(samples), content};
  };
  for (const args of [{pattern: 'needle \\d+'}, {pattern: 'no-such-text-anywhere'}]) {
    const withRg = await time(createGrepTool({rgPath: rg}), args);
    const builtIn = await time(createGrepTool({rgPath: null}), args);
    const same = withRg.content === builtIn.content ? 'same output' : 'OUTPUTS DIFFER';
    console.log(
      `grep ${JSON.stringify(args.pattern).padEnd(26)} rg ${withRg.ms.toFixed(0).padStart(5)} ms   built-in ${builtIn.ms.toFixed(0).padStart(5)} ms   ratio ${(builtIn.ms / withRg.ms).toFixed(2)}x   (${same}; goal <= 5x)`,
    );
  }
} finally {
  await rm(work, {recursive: true, force: true});
}
