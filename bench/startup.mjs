// Startup benchmark (#2), printed, not asserted: median of RUNS for
//   node -e 0            the floor
//   nib --version        spawn to exit
//   nib -p               spawn to the first request arriving at the loopback server
//   nib -p, config file  the same with the model named in a config file (which nib validates)
//   nib -p + MCP         the same with server-everything configured (over stdio): print mode
//                        waits for it to be ready before the first request
//   raw SDK script       the reference for the -p rows: bench/raw-sdk.mjs, bundled as nib is, from
//                        spawn to its first request (the openai SDK and Node's fetch loaded, one
//                        request sent, nothing else). nib loads neither (it sends through
//                        node:http), so this is what a client built the usual way pays, not a floor.
// Goal: under 60 ms above the floor.  Run: npm run build && npx node bench/startup.mjs
// NIB_BENCH_BASELINE=path/to/other/dist/cli.js times that build too, interleaved, as a baseline.
import {build} from 'esbuild';
import {spawn} from 'node:child_process';
import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {builds, loadTestServer, median, requireBuild} from './support.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);

requireBuild();
const {startOpenAiServer, sse} = await loadTestServer();
const home = await mkdtemp(join(tmpdir(), 'nib-bench-startup-'));
const env = {...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data'), XDG_STATE_HOME: join(home, 'state'), OPENAI_API_KEY: 'bench'};
// Most people keep their model in the config file; reading one must not undo the savings.
const configured = {...env, XDG_CONFIG_HOME: join(home, 'configured')};
await mkdir(join(home, 'configured', 'nib'), {recursive: true});
await writeFile(join(home, 'configured', 'nib', 'config.json'), JSON.stringify({model: 'bench-model', approvalMode: 'ask'}));
const everything = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const mcpEnv = {...env, XDG_CONFIG_HOME: join(home, 'config-mcp')};
await mkdir(join(home, 'config-mcp', 'nib'), {recursive: true});
await writeFile(join(home, 'config-mcp', 'nib', 'config.json'), JSON.stringify({mcpServers: {everything: {command: process.execPath, args: [everything]}}}));
const compared = builds();

function toExit(args, childEnv = env) {
  const started = performance.now();
  const child = spawn(process.execPath, args, {stdio: 'ignore', env: childEnv, cwd: home});
  return new Promise(resolve => child.on('close', () => resolve(performance.now() - started)));
}

// The server never answers: the clock stops when the request arrives, then nib is killed.
const server = await startOpenAiServer(() => sse.stall());
const cpu = new Map();
/** Spawn to the first request reaching the server, and the CPU the child used so far; then it is killed. */
async function firstRequest(args, childEnv) {
  const before = server.requests.length;
  const started = performance.now();
  const child = spawn(process.execPath, args, {stdio: 'ignore', env: childEnv, cwd: home});
  await server.waitForRequests(before + 1);
  const elapsed = performance.now() - started;
  // CPU (user + sys) so far, in clock ticks of 10 ms: steadier than wall time on a busy machine.
  const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8').catch(() => '');
  const [utime, stime] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(11, 13).map(Number);
  const closed = new Promise(resolve => child.on('close', resolve));
  child.kill('SIGKILL');
  await closed;
  return {elapsed, cpuMs: (utime + stime) * 10};
}

/** `withConfig`: false, true (the model in a config file) or 'mcp' (a config file with an MCP server). */
async function toFirstRequest(cli, withConfig) {
  const args = [cli, '-p', 'hi', '--base-url', server.url, ...(withConfig === true ? [] : ['--model', 'bench-model'])];
  const {elapsed, cpuMs} = await firstRequest(args, withConfig === 'mcp' ? mcpEnv : withConfig ? configured : env);
  cpu.get(cli + withConfig)?.push(cpuMs) ?? cpu.set(cli + withConfig, [cpuMs]);
  return elapsed;
}

// The raw SDK script bundled like nib (minified) and loaded as nib loads its chunks, with Node's
// compile cache on, so module loading costs it what it costs nib.
const rawSdk = join(home, 'raw-sdk', 'entry.mjs');
await mkdir(join(home, 'raw-sdk'), {recursive: true});
await writeFile(rawSdk, "import module from 'node:module';\nmodule.enableCompileCache?.();\nawait import('./raw-sdk.js');\n");
await build({
  entryPoints: [fileURLToPath(new URL('raw-sdk.mjs', import.meta.url))],
  outdir: join(home, 'raw-sdk'),
  bundle: true,
  minify: true,
  platform: 'node',
  format: 'esm',
  logLevel: 'warning',
});
// Node writes its compile cache when a process exits normally, and the timed runs are killed: one
// complete run of each build first, so a build measured right after it was made is not cold.
{
  const answering = await startOpenAiServer(() => sse.text('warm'));
  for (const [, cli] of compared) {
    await toExit([cli, '-p', 'hi', '--base-url', answering.url, '--model', 'bench-model']);
    await toExit([cli, '-p', 'hi', '--base-url', answering.url], configured);
  }
  await toExit([rawSdk, answering.url]);
  await answering.close();
}

const floor = [];
const rows = new Map();
const cpuRows = new Map();
const add = (name, value, cpuMs) => {
  rows.set(name, [...(rows.get(name) ?? []), value]);
  if (cpuMs !== undefined) cpuRows.set(name, [...(cpuRows.get(name) ?? []), cpuMs]);
};
try {
  // Interleaved so drift on a shared machine hits every row alike.
  for (let i = 0; i < RUNS; i++) {
    floor.push(await toExit(['-e', '0']));
    const sdk = await firstRequest([rawSdk, server.url], env);
    add('raw SDK script, bundled', sdk.elapsed, sdk.cpuMs);
    for (const [label, cli] of compared) {
      add(`nib --version${label}`, await toExit([cli, '--version']));
      add(`nib -p${label}`, await toFirstRequest(cli, false), cpu.get(cli + false)?.at(-1));
      add(`nib -p, config file${label}`, await toFirstRequest(cli, true), cpu.get(cli + true)?.at(-1));
      add(`nib -p + MCP server${label}`, await toFirstRequest(cli, 'mcp'), cpu.get(cli + 'mcp')?.at(-1));
    }
  }
} finally {
  await server.close();
  await rm(home, {recursive: true, force: true});
}

const f = median(floor);
console.log(`startup: median of ${RUNS} (node ${process.version})`);
console.log(`  ${'node -e 0'.padEnd(36)}${f.toFixed(1).padStart(7)} ms`);
for (const [name, values] of rows) {
  const m = median(values);
  const goal = name.startsWith('nib -p') ? ' (goal <= 60)' : name.startsWith('raw SDK') ? ' (to its first request)' : '';
  const cpuMs = cpuRows.has(name) ? `; CPU ${median(cpuRows.get(name)).toFixed(0)} ms (mean ${(cpuRows.get(name).reduce((a, b) => a + b, 0) / values.length).toFixed(0)})` : '';
  console.log(`  ${name.padEnd(36)}${m.toFixed(1).padStart(7)} ms   +${(m - f).toFixed(1)} ms over the floor${goal}${cpuMs}`);
}
console.log('  nib -p rows: spawn to the first request reaching the server');
