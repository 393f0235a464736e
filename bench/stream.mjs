// Streaming benchmark (#2), printed, not asserted: a 20,000-token answer from the loopback server
// through `nib -p` and through bench/raw-sdk.mjs (the raw openai SDK), alternating, in the same
// run. Prints wall time, CPU (user+sys) and peak RSS, medians of RUNS, and nib's ratio to the SDK.
// Goal: CPU <= 1.3x the raw SDK.  Run: npm run build && npx node bench/stream.mjs
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {CLI, ROOT, loadTestServer, measure, median, requireBuild} from './support.mjs';

const TOKENS = Number(process.env.BENCH_TOKENS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

requireBuild();
const {startOpenAiServer, sse} = await loadTestServer();

// A token is 4 characters and one SSE delta, as with real models; line breaks like a real answer.
const words = ['the', 'map', 'for', 'nib', 'can', 'run', 'all', 'its', 'big', 'job'];
let answer = '';
for (let i = 0; i < TOKENS; i++) answer += words[i % words.length] + (i % 16 === 15 ? '\n' : ' ');
const response = sse.text(answer, {chunkSize: 4});
const deltas = response.frames.length;

const server = await startOpenAiServer(() => response);
const home = await mkdtemp(join(tmpdir(), 'nib-bench-stream-'));
const env = {...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data'), XDG_STATE_HOME: join(home, 'state'), OPENAI_API_KEY: 'bench'};

const runs = {nib: [], sdk: []};
try {
  for (let i = 0; i < RUNS; i++) {
    const nib = await measure(process.execPath, [CLI, '-p', 'write a long answer', '--base-url', server.url, '--model', 'bench-model'], {env, cwd: home});
    if (nib.code !== 0 || nib.stdoutBytes !== Buffer.byteLength(answer)) throw new Error(`nib failed (${nib.code}, ${nib.stdoutBytes} bytes): ${nib.stderr}`);
    runs.nib.push(nib);
    const sdk = await measure(process.execPath, [join(ROOT, 'bench/raw-sdk.mjs'), server.url], {env, cwd: ROOT});
    if (sdk.code !== 0) throw new Error(`raw SDK script failed: ${sdk.stderr}`);
    runs.sdk.push(sdk);
  }
} finally {
  await server.close();
  await rm(home, {recursive: true, force: true});
}

const stat = (list, key) => median(list.map(r => r[key]));
const row = name => ({wall: stat(runs[name], 'wallMs'), cpu: stat(runs[name], 'cpuMs'), rss: stat(runs[name], 'rssMb')});
const nib = row('nib');
const sdk = row('sdk');
console.log(`stream: ${TOKENS} tokens (${deltas} SSE events, ${(Buffer.byteLength(answer) / 1024).toFixed(0)} KiB), median of ${RUNS} (node ${process.version})`);
console.log(`  ${''.padEnd(10)}${'wall ms'.padStart(10)}${'cpu ms'.padStart(10)}${'peak MB'.padStart(10)}`);
for (const [name, r] of [['nib -p', nib], ['raw SDK', sdk]]) {
  console.log(`  ${name.padEnd(10)}${r.wall.toFixed(0).padStart(10)}${r.cpu.toFixed(0).padStart(10)}${r.rss.toFixed(1).padStart(10)}`);
}
console.log(`  ratio     ${(nib.wall / sdk.wall).toFixed(2).padStart(10)}${(nib.cpu / sdk.cpu).toFixed(2).padStart(10)}${(nib.rss / sdk.rss).toFixed(2).padStart(10)}   (goal: cpu <= 1.30)`);
