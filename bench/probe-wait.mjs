// How long `nib -p` holds its first request for the server's window when the server is not on
// this machine. Printed, not asserted: median of RUNS, spawn to the first request reaching the
// server, for a loopback server that answers each metadata request DELAY_MS late (a server that
// far away; the chat request itself is counted when it arrives, so the delay is paid only by what
// nib waits for before sending it). Rows:
//   model only          nib asks the model list, then the local servers' routes, and waits (≤ 1.5 s)
//   contextWindow set   the person's window wins: nothing to wait for
// A hosted provider's well-known model (OpenAI's gpt-4o, …) takes the second path too; it cannot be
// reached from a loopback bench (its origin is the provider's), so its test counts requests instead.
// Run: npm run build && npx node bench/probe-wait.mjs   (NIB_BENCH_BASELINE=<other dist/cli.js>)
import {spawn} from 'node:child_process';
import {createServer} from 'node:http';
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {builds, median, requireBuild} from './support.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const DELAY_MS = Number(process.env.DELAY_MS ?? 50);

requireBuild();
const home = await mkdtemp(join(tmpdir(), 'nib-bench-probe-'));
const configs = {};
for (const [name, config] of [['model only', {model: 'bench-model'}], ['contextWindow set', {model: 'bench-model', contextWindow: 32768}]]) {
  configs[name] = join(home, name.replace(/\W+/g, '-'));
  await mkdir(join(configs[name], 'nib'), {recursive: true});
  await writeFile(join(configs[name], 'nib', 'config.json'), JSON.stringify(config));
}
const compared = builds();

// The model list names no window (as a hosted API's would not); every other route is a 404. The
// chat request is never answered: the clock stops when it arrives, then nib is killed.
let chats = 0;
let arrived = () => {};
const server = createServer((request, response) => {
  if (request.method === 'POST') {
    chats++;
    arrived();
    return;
  }
  setTimeout(() => {
    if (request.url === '/v1/models') response.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({data: [{id: 'bench-model'}]}));
    else response.writeHead(404).end();
  }, DELAY_MS);
});
await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/v1`;

async function toFirstRequest(cli, configDir) {
  const before = chats;
  const started = performance.now();
  const env = {...process.env, HOME: home, XDG_CONFIG_HOME: configDir, XDG_DATA_HOME: join(home, 'data'), XDG_STATE_HOME: join(home, 'state'), OPENAI_API_KEY: 'bench'};
  const child = spawn(process.execPath, [cli, '-p', 'hi', '--base-url', url], {stdio: 'ignore', env, cwd: home});
  const closed = new Promise(resolve => child.on('close', resolve));
  const gone = closed.then(() => 'exited');
  while (chats === before) {
    if ((await Promise.race([new Promise(resolve => (arrived = resolve)), gone])) === 'exited') throw new Error(`${cli} exited before its first request`);
  }
  const elapsed = performance.now() - started;
  child.kill('SIGKILL');
  await closed;
  return elapsed;
}

const rows = new Map();
try {
  for (let i = 0; i < RUNS; i++) {
    for (const [label, cli] of compared) {
      for (const [name, configDir] of Object.entries(configs)) {
        const row = `nib -p, ${name}${label}`;
        rows.set(row, [...(rows.get(row) ?? []), await toFirstRequest(cli, configDir)]);
      }
    }
  }
} finally {
  server.closeAllConnections();
  server.close();
  await rm(home, {recursive: true, force: true});
}

console.log(`probe-wait: a server ${DELAY_MS} ms away, spawn to the first request; median of ${RUNS} (node ${process.version})`);
for (const [name, values] of rows) console.log(`  ${name.padEnd(40)}${median(values).toFixed(1).padStart(7)} ms`);
