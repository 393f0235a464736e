// The tool round: from the end of a response that calls `read` to the next request reaching the
// server, through `nib -p`. One turn of ROUNDS rounds per run, RUNS runs: the server answers every
// request at once, so the time between two requests arriving is nib's own (parse the call, judge
// it, run it, log it, build and send the next request). Printed, not asserted. Goal: <= 10 ms.
// The first round of a run is reported apart: it also loads the tools (they load while the first
// response streams, and a loopback response is over at once).
// Run: npm run build && npx node bench/tool-round.mjs
// NIB_BENCH_BASELINE=other/dist/cli.js times that build too, interleaved, as a baseline.
import {spawn} from 'node:child_process';
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {builds, loadTestServer, measure, median, requireBuild} from './support.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

requireBuild();
const {startOpenAiServer, sse} = await loadTestServer();
const home = await mkdtemp(join(tmpdir(), 'nib-bench-round-'));
// The workspace apart from nib's own dirs, so auto-edit's undo snapshots hold only the project.
const project = join(home, 'project');
await mkdir(project);
await writeFile(join(project, 'notes.txt'), Array.from({length: ROUNDS + 10}, (_, i) => `line ${i + 1} of the notes`).join('\n'));
const env = {...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data'), XDG_STATE_HOME: join(home, 'state'), OPENAI_API_KEY: 'bench'};
const compared = builds(['nib', 'baseline']);

async function run(cli, mode, rounds = ROUNDS) {
  const arrivals = [];
  const server = await startOpenAiServer((request, index) => {
    arrivals.push(performance.now());
    // A different line each round: the same call three times in a row stops the turn as a loop.
    return index < rounds ? sse.toolCall('read', {path: 'notes.txt', offset: index + 1, limit: 5}) : sse.text('Read it many times.');
  });
  try {
    const args = [cli, '-p', 'read notes.txt again and again', '--base-url', server.url, '--model', 'bench-model', '--approval-mode', mode];
    const result = await measure(process.execPath, args, {env, cwd: project});
    if (result.code !== 0 || arrivals.length !== rounds + 1) throw new Error(`nib exited ${result.code} after ${arrivals.length} requests: ${result.stderr}`);
    const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]);
    return {first: gaps[0], rest: gaps.slice(1), cpuMs: result.cpuMs};
  } finally {
    await server.close();
  }
}

const results = new Map();
try {
  for (let i = 0; i < RUNS; i++) {
    for (const [name, cli] of compared) {
      // ask: a read inside the workspace runs without asking; auto-edit also records an undo point per turn.
      for (const mode of ['ask', 'auto-edit']) {
        const key = `${name}, ${mode}`;
        const {first, rest, cpuMs} = await run(cli, mode);
        // CPU per round, steadier than wall time on a busy machine: this run's CPU less a one-round run's.
        const one = await run(cli, mode, 1);
        const entry = results.get(key) ?? {first: [], rest: [], cpu: []};
        entry.first.push(first);
        entry.rest.push(...rest);
        entry.cpu.push((cpuMs - one.cpuMs) / (ROUNDS - 1));
        results.set(key, entry);
      }
    }
  }
} finally {
  await rm(home, {recursive: true, force: true});
}
console.log(`tool round (read call ends -> next request arrives), ${ROUNDS} rounds x ${RUNS} runs, node ${process.version}`);
for (const [key, {first, rest, cpu}] of results) {
  console.log(`  ${key.padEnd(22)} median ${median(rest).toFixed(1).padStart(6)} ms (goal <= 10), first round of a run ${median(first).toFixed(1)} ms; CPU per round ${median(cpu).toFixed(1)} ms`);
}
