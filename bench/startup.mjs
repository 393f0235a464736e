// Startup benchmark (#2), printed, not asserted: median of RUNS for
//   node -e 0            the floor
//   nib --version        spawn to exit
//   nib -p               spawn to the first request arriving at the loopback server
//   nib -p + MCP         the same with server-everything configured (over stdio): print mode
//                        waits for it to be ready before the first request
// Goal: under 100 ms above the floor.  Run: npm run build && npx node bench/startup.mjs
import {spawn} from 'node:child_process';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {mkdir, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {CLI, loadTestServer, median, requireBuild} from './support.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);

requireBuild();
const {startOpenAiServer, sse} = await loadTestServer();
const home = await mkdtemp(join(tmpdir(), 'nib-bench-startup-'));
const env = {...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data'), XDG_STATE_HOME: join(home, 'state'), OPENAI_API_KEY: 'bench'};
const everything = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const mcpEnv = {...env, XDG_CONFIG_HOME: join(home, 'config-mcp')};
await mkdir(join(home, 'config-mcp', 'nib'), {recursive: true});
await writeFile(join(home, 'config-mcp', 'nib', 'config.json'), JSON.stringify({mcpServers: {everything: {command: process.execPath, args: [everything]}}}));

function toExit(args) {
  const started = performance.now();
  const child = spawn(process.execPath, args, {stdio: 'ignore', env, cwd: home});
  return new Promise(resolve => child.on('close', () => resolve(performance.now() - started)));
}

// The server never answers: the clock stops when the request arrives, then nib is killed.
const server = await startOpenAiServer(() => sse.stall());
async function toFirstRequest(childEnv = env) {
  const before = server.requests.length;
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, '-p', 'hi', '--base-url', server.url, '--model', 'bench-model'], {stdio: 'ignore', env: childEnv, cwd: home});
  await server.waitForRequests(before + 1);
  const elapsed = performance.now() - started;
  const closed = new Promise(resolve => child.on('close', resolve));
  child.kill('SIGKILL');
  await closed;
  return elapsed;
}

const floor = [];
const version = [];
const print = [];
const printMcp = [];
try {
  // Interleaved so drift on a shared machine hits all three alike.
  for (let i = 0; i < RUNS; i++) {
    floor.push(await toExit(['-e', '0']));
    version.push(await toExit([CLI, '--version']));
    print.push(await toFirstRequest());
    printMcp.push(await toFirstRequest(mcpEnv));
  }
} finally {
  await server.close();
  await rm(home, {recursive: true, force: true});
}

const f = median(floor);
console.log(`startup: median of ${RUNS} (node ${process.version})`);
console.log(`  node -e 0                   ${f.toFixed(1).padStart(7)} ms`);
for (const [name, values] of [['nib --version', version], ['nib -p (to first request)', print], ['nib -p + MCP server', printMcp]]) {
  const m = median(values);
  console.log(`  ${name.padEnd(28)}${m.toFixed(1).padStart(7)} ms   +${(m - f).toFixed(1)} ms over the floor (goal < 100)`);
}
