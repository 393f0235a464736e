// What the interactive session pays when it loads its markdown renderer (at the first prompt sent):
// CPU of loading the bundled renderer and drawing one plain paragraph, then of the first code block
// (syntax highlighting), then of a second one. Printed, not asserted: median of RUNS, each in a
// fresh Node process with the compile cache warm, as nib loads it.
// Run: npm run build && npx node bench/markdown-load.mjs   (NIB_BENCH_BASELINE=<other dist/cli.js>)
import {spawnSync} from 'node:child_process';
import {dirname, join} from 'node:path';
import {pathToFileURL} from 'node:url';
import {newestChunk} from '../scripts/newest-chunk.mjs';
import {builds, median, requireBuild} from './support.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
requireBuild();

// Runs in the child: prints three CPU figures in ms.
const probe = `
import module from 'node:module';
module.enableCompileCache?.();
const cpu = () => { const {user, system} = process.cpuUsage(); return (user + system) / 1000; };
let start = cpu();
const {createMarkdownRenderer} = await import(process.argv[1]);
const render = createMarkdownRenderer({width: text => text.length, wrap: text => text, cut: text => text}); // no table is drawn here
render('Some **bold** text and a [link](https://example.com).', 100, true);
const load = cpu() - start;
start = cpu();
render('\`\`\`js\\nconst answer = 42;\\n\`\`\`', 100, true);
const first = cpu() - start;
start = cpu();
render('\`\`\`python\\nanswer = 42\\n\`\`\`', 100, true);
console.log(JSON.stringify([load, first, cpu() - start]));
`;

function renderer(cli) {
  const chunks = join(dirname(cli), 'chunks');
  return pathToFileURL(join(chunks, newestChunk(chunks, 'markdown-render-'))).href;
}

function once(url) {
  // FORCE_COLOR: highlighting only runs when colour is on, as in a terminal.
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', probe, url], {encoding: 'utf8', env: {...process.env, FORCE_COLOR: '1'}});
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout);
}

const compared = builds(['this build', 'baseline']);
const rows = compared.map(([label, cli]) => ({label, url: renderer(cli), runs: []}));
for (const row of rows) once(row.url); // the compile cache is written when a process exits normally
for (let i = 0; i < RUNS; i++) for (const row of rows) row.runs.push(once(row.url));

console.log(`markdown-load: CPU ms, median of ${RUNS} (node ${process.version})`);
for (const {label, runs} of rows) {
  const [load, first, second] = [0, 1, 2].map(column => median(runs.map(run => run[column])).toFixed(1));
  console.log(`  ${label.padEnd(12)} load + a paragraph ${load.padStart(6)}   first code block ${first.padStart(6)}   second ${second.padStart(5)}`);
}
