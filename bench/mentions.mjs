// `@` completion on a generated 50,000-file tree: the one-time walk, then the cost of each
// keystroke of a typed query (goal: <= 50 ms each). Baselines in the same run: a plain substring
// filter over the same paths, and the fuzzy matcher on unprepared strings (no index).
// Printed, not asserted. Run: npx node bench/mentions.mjs
import {mkdirSync, writeFileSync} from 'node:fs';
import {rm} from 'node:fs/promises';
import {join} from 'node:path';
import fuzzysort from 'fuzzysort';
import {importSources, median, treeDir} from './support.mjs';

const RUNS = 5;
const work = await treeDir('nib-bench-mentions-');
try {
  const {MentionIndex} = (await importSources({index: 'source/agent/mention-index.ts'})).index;

  // 50 packages x 10 modules x 100 files, plus an ignored build folder the index must skip.
  const tree = join(work, 'tree');
  let started = performance.now();
  let n = 0;
  for (let top = 0; top < 50; top++) {
    for (let sub = 0; sub < 10; sub++) {
      const dir = join(tree, `packages/pkg${top}/src/module${sub}`);
      mkdirSync(dir, {recursive: true});
      for (let file = 0; file < 100; file++) writeFileSync(join(dir, `component${file}.ts`), `${n++}\n`);
    }
  }
  mkdirSync(join(tree, 'dist'));
  for (let file = 0; file < 1000; file++) writeFileSync(join(tree, 'dist', `chunk${file}.js`), '');
  writeFileSync(join(tree, '.gitignore'), 'dist/\n');
  console.log(`tree: ${n} files (+1,000 ignored) generated in ${Math.round(performance.now() - started)} ms`);

  const walks = [];
  let index;
  for (let run = 0; run < RUNS; run++) {
    index = new MentionIndex(tree);
    started = performance.now();
    await index.build();
    walks.push(performance.now() - started);
  }
  console.log(`index build (walk + prepare), once per session: median ${median(walks).toFixed(0)} ms over ${RUNS} runs; ${index.entries.length} paths`);

  const paths = index.entries;
  const query = 'pkg42module7comp99';
  const keystrokes = Array.from({length: query.length}, (_, i) => query.slice(0, i + 1));
  const perKeystroke = search => {
    const samples = [];
    for (const typed of keystrokes) {
      const times = [];
      for (let run = 0; run < RUNS; run++) {
        const t = performance.now();
        search(typed);
        times.push(performance.now() - t);
      }
      samples.push(median(times));
    }
    const max = Math.max(...samples);
    return {median: median(samples), max, worstAt: keystrokes[samples.indexOf(max)]};
  };
  const indexed = perKeystroke(typed => index.search(typed));
  const substring = perKeystroke(typed => paths.filter(path => path.includes(typed)).slice(0, 50));
  const unprepared = perKeystroke(typed => fuzzysort.go(typed, paths, {limit: 50, threshold: 0}));
  const row = (name, r) => `${name.padEnd(34)} median ${r.median.toFixed(2).padStart(6)} ms   worst ${r.max.toFixed(2).padStart(6)} ms at "${r.worstAt}"`;
  console.log(`per keystroke, ${keystrokes.length} keystrokes typing "${query}" (median of ${RUNS} each):`);
  console.log(row('index.search (fuzzy, prepared)', indexed) + '   (goal: worst <= 50 ms)');
  console.log(row('baseline: substring filter', substring));
  console.log(row('baseline: fuzzy, unprepared', unprepared));
  console.log(`top match: ${index.search(query)[0]}`);
} finally {
  await rm(work, {recursive: true, force: true});
}

