// Per-command overhead of the command sandbox: `bash -c true` run plain (the baseline), through
// nib's bwrap wrapper (source/agent/guard/sandbox.ts), and, when it is installed somewhere
// (NIB_BENCH_SRT=/dir/with/node_modules), through @anthropic-ai/sandbox-runtime. Interleaved
// runs, medians, so load on the machine hits all three alike. The goal is <= 15 ms over plain.
import {spawn} from 'node:child_process';
import {mkdtemp, rm} from 'node:fs/promises';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {pathToFileURL} from 'node:url';
import {CLI, importSources, loadTestServer, median, requireBuild} from './support.mjs';

const RUNS = Number(process.env.NIB_BENCH_RUNS ?? 40);
const {sandbox: guard} = await importSources({sandbox: 'source/agent/guard/sandbox.ts'});
const root = await mkdtemp(join(tmpdir(), 'nib-bench-sandbox-'));

function timeRun(argv) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {stdio: 'ignore', cwd: root});
    child.once('error', reject);
    child.once('close', code => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${argv[0]} exited ${code}`))));
  });
}

const variants = {plain: argv => argv};
const started = await guard.startSandbox({setting: 'on', network: false, hide: []}, root, process.env);
if (!started.ok) throw new Error(started.error);
variants.bwrap = argv => started.sandbox.wrap(argv);

let srtInit = null;
if (process.env.NIB_BENCH_SRT) {
  const require = createRequire(join(process.env.NIB_BENCH_SRT, 'package.json'));
  const {SandboxManager} = await import(pathToFileURL(require.resolve('@anthropic-ai/sandbox-runtime')).href);
  const t0 = performance.now();
  await SandboxManager.initialize({
    network: {allowedDomains: [], deniedDomains: []},
    filesystem: {denyRead: guard.secretPaths(process.env), allowWrite: [root], denyWrite: []},
  });
  srtInit = performance.now() - t0;
  // wrapWithSandbox is async and part of every command's cost, so it is inside the timing.
  variants.srt = async argv => ['bash', '-c', await SandboxManager.wrapWithSandbox(argv.slice(2).join(' '))];
}

const times = Object.fromEntries(Object.keys(variants).map(name => [name, []]));
for (let i = 0; i < RUNS; i++) {
  for (const [name, wrap] of Object.entries(variants)) {
    const t0 = performance.now();
    const argv = await wrap(['bash', '-c', 'true']);
    const ran = await timeRun(argv);
    times[name].push(ran + (performance.now() - t0 - ran));
  }
}
const base = median(times.plain);
console.log(`bash -c true, ${RUNS} interleaved runs, median wall ms`);
for (const [name, list] of Object.entries(times)) {
  const m = median(list);
  console.log(`  ${name.padEnd(6)} ${m.toFixed(1).padStart(6)} ms   overhead ${(m - base).toFixed(1).padStart(6)} ms${name === 'plain' ? ' (baseline)' : ''}`);
}
if (srtInit !== null) console.log(`  srt initialize (once per session): ${srtInit.toFixed(0)} ms`);
else console.log('  srt: not measured (set NIB_BENCH_SRT to a dir where @anthropic-ai/sandbox-runtime is installed)');
await started.sandbox.close();

// What the once-per-session probe costs `nib -p`: spawn to the first request at the loopback
// server, with the sandbox off (the baseline) and on auto (probe started, not awaited).
requireBuild();
const {startOpenAiServer, sse} = await loadTestServer();
const env = {...process.env, HOME: root, XDG_CONFIG_HOME: join(root, 'c'), XDG_DATA_HOME: join(root, 'd'), XDG_STATE_HOME: join(root, 's'), OPENAI_API_KEY: 'bench'};
const server = await startOpenAiServer(() => sse.stall());
async function toFirstRequest(extra) {
  const before = server.requests.length;
  const t0 = performance.now();
  const child = spawn(process.execPath, [CLI, '-p', 'hi', '--base-url', server.url, '--model', 'bench-model', ...extra], {stdio: 'ignore', env, cwd: root});
  while (server.requests.length === before) await new Promise(resolve => setTimeout(resolve, 1));
  const ms = performance.now() - t0;
  child.kill('SIGKILL');
  await new Promise(resolve => child.on('close', resolve));
  return ms;
}
const startup = {off: [], auto: []};
for (let i = 0; i < Math.min(RUNS, 15); i++) {
  startup.off.push(await toFirstRequest(['--sandbox', 'off']));
  startup.auto.push(await toFirstRequest([]));
}
console.log(`nib -p to the first request, ${startup.off.length} interleaved runs, median`);
console.log(`  --sandbox off  ${median(startup.off).toFixed(0).padStart(4)} ms (baseline)`);
const probeCost = median(startup.auto) - median(startup.off);
console.log(`  --sandbox auto ${median(startup.auto).toFixed(0).padStart(4)} ms   ${probeCost >= 0 ? '+' : ''}${probeCost.toFixed(0)} ms (the bwrap probe runs in the background)`);
await server.close();
await rm(root, {recursive: true, force: true});
process.exit(0);
