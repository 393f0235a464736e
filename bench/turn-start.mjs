// How soon a prompt typed in the TUI reaches the server: Enter to the chat request arriving at
// the loopback server, median of BENCH_RUNS, in an empty project and in a git repository of
// BENCH_FILES small files (the undo point of the turn, a snapshot of the workspace, is taken
// meanwhile). Each run is a new session; the prompt is typed once the idle screen has been up for
// 2.5 s (the start's background work done). Printed, not asserted.
// Run: npm run build && npx node bench/turn-start.mjs   (NIB_BENCH_BASELINE=<other dist/cli.js>)
import {execFileSync} from 'node:child_process';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {cleanup, IDLE, startNib, turnEnded} from './pty.mjs';
import {builds, loadTestServer, median, requireBuild, writeTree} from './support.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const FILES = Number(process.env.BENCH_FILES ?? 5000);

requireBuild();
const {startOpenAiServer, sse} = await loadTestServer();
const server = await startOpenAiServer(() => sse.text('ok'));

const repo = await mkdtemp(join(tmpdir(), 'nib-bench-turn-start-'));
await writeTree(repo, FILES);
const git = (...args) => execFileSync('git', args, {cwd: repo, stdio: 'ignore', env: {...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b'}});
git('init', '-q');
git('add', '-A');
git('commit', '-qm', 'bench');

async function enterToRequest(cli, cwd) {
  const nib = await startNib(server.url, [], cli, cwd ? {cwd} : {});
  try {
    await nib.waitFor(IDLE, {timeoutMs: 20_000});
    await new Promise(resolve => setTimeout(resolve, 2500));
    const before = server.requests.length;
    const from = nib.textLength();
    nib.write('hello');
    await nib.waitFor('hello', {from, timeoutMs: 5000});
    const sent = performance.now();
    nib.write('\r');
    while (server.requests.length === before) await new Promise(resolve => setImmediate(resolve));
    const elapsed = performance.now() - sent;
    await turnEnded(nib, from);
    return elapsed;
  } finally {
    await nib.quit();
  }
}

const compared = builds();
const places = [['an empty project', undefined], [`a git repository of ${FILES} files`, repo]];
const times = new Map();
// Interleaved, so a drift in the machine's speed reaches every build alike.
for (let run = 0; run < RUNS; run++) {
  for (const [place, cwd] of places) {
    for (const [label, cli] of compared) {
      const key = `${place}${label}`;
      times.set(key, [...(times.get(key) ?? []), await enterToRequest(cli, cwd)]);
    }
  }
}
console.log(`turn start: Enter to the first request reaching the server, median of ${RUNS} (node ${process.version})`);
for (const [key, values] of times) console.log(`  ${key.padEnd(48)} ${median(values).toFixed(1)} ms  (${values.map(value => value.toFixed(0)).join(' ')})`);

await server.close();
await cleanup();
await rm(repo, {recursive: true, force: true});
