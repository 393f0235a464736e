// Session benchmarks (#5), printed, not asserted:
//   1. snapshot time per turn on a 20,000-file workspace (median): unchanged tree, one file changed.
//      Goal: <= 100 ms unchanged.
//   2. `nib --continue -p` start time with a 1,000-message session, up to the first request reaching
//      the loopback server (median), against `nib --version` as the floor. Goal: resume <= 300 ms.
//   3. the same session resumed in the TUI (a 40x120 pty): spawn until its last answer is on the
//      screen, and that start's CPU and peak RSS (the resumed transcript is drawn at once).
//      NIB_BENCH_BASELINE=<other dist/cli.js> runs another build too, alternating; BENCH_MESSAGES
//      sets the session's length (1,000).
// Run: npm run build && npx node bench/session.mjs   (esbuild bundles the TypeScript modules it needs)
import {spawn} from 'node:child_process';
import {cp, mkdir, mkdtemp, realpath, rm, writeFile} from 'node:fs/promises';
import {createServer} from 'node:http';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {builds, CLI, importSources, median, requireBuild, writeTree} from './support.mjs';

const FILES = Number(process.env.BENCH_FILES ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 11);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1_000);

const ms = value => `${value.toFixed(1)} ms`;

requireBuild();
const base = await realpath(await mkdtemp(join(tmpdir(), 'nib-bench-session-')));
try {
  // The modules are TypeScript: bundled once (bench/support.mjs).
  const {snapshot, session} = await importSources({snapshot: 'source/agent/session/snapshots.ts', session: 'source/agent/session/log.ts'});
  const {Snapshots} = snapshot;
  const {SessionLog, sessionsDir} = session;

  // ---- 1. snapshots
  const root = join(base, 'work');
  const data = join(base, 'data');
  await writeTree(root, FILES);
  const opened = await Snapshots.open({root, data, session: 'bench'});
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.value;
  let started = performance.now();
  await store.take('first');
  const first = performance.now() - started;

  const unchanged = [];
  for (let run = 0; run < RUNS; run++) {
    started = performance.now();
    const taken = await store.take(`unchanged ${run}`);
    unchanged.push(performance.now() - started);
    if (!taken.ok) throw new Error(taken.error.message);
  }
  const oneChanged = [];
  for (let run = 0; run < RUNS; run++) {
    await writeFile(join(root, 'pkg7', 'src', 'f7.ts'), `export const changed = ${run};\n`);
    started = performance.now();
    const taken = await store.take(`changed ${run}`);
    oneChanged.push(performance.now() - started);
    if (!taken.ok) throw new Error(taken.error.message);
  }
  console.log(`snapshot, ${FILES} files: first ${ms(first)}, unchanged median ${ms(median(unchanged))}, one file changed median ${ms(median(oneChanged))} (goal <= 100 ms unchanged)`);

  // ---- 2. --continue start time
  const workspace = join(base, 'resume');
  await mkdir(workspace);
  // A separate workspace, so the fresh runs never become this one's latest session.
  const freshWorkspace = join(base, 'fresh');
  await mkdir(freshWorkspace);
  const xdgData = join(base, 'xdg-data');
  const log = SessionLog.create({dir: sessionsDir(join(xdgData, 'nib'), workspace), cwd: workspace, model: 'bench-model', redact: t => t});
  for (let index = 0; index < MESSAGES / 4; index++) {
    const id = `call_${index}`;
    log.recordMessage({type: 'user', content: `Question ${index}: what does pkg${index}/src/f1.ts export? `.repeat(3)});
    log.recordMessage({type: 'assistant-tool-calls', toolCalls: [{id, name: 'read', arguments: JSON.stringify({path: `pkg${index}/src/f1.ts`})}]});
    log.recordMessage({type: 'tool-result', toolCallId: id, content: '1\texport const value = 1;\n'.repeat(20)});
    log.recordMessage({type: 'assistant-text', content: `${'It exports a constant. '.repeat(10)}\n\nAnswer ${index}.`});
  }
  await log.close();
  // Part 2 adds a turn to the session with every run; part 3 resumes it as it was made.
  const tuiData = join(base, 'xdg-data-tui');
  await cp(xdgData, tuiData, {recursive: true});

  let firstRequestAt = 0;
  const server = createServer((request, response) => {
    firstRequestAt = performance.now();
    request.resume();
    request.on('end', () => {
      response.writeHead(200, {'content-type': 'text/event-stream'});
      response.end('data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
    });
  });
  await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/v1`;
  const env = {...process.env, XDG_DATA_HOME: xdgData, XDG_CONFIG_HOME: join(base, 'cfg'), XDG_STATE_HOME: join(base, 'state'), OPENAI_API_KEY: 'bench', NIB_MODEL: 'bench-model'};
  const run = args => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {env, stdio: ['ignore', 'ignore', 'pipe']});
    let stderr = '';
    child.stderr.on('data', chunk => (stderr += chunk));
    child.on('close', code => (code === 0 ? resolve() : reject(new Error(`nib ${args.join(' ')} exited ${code}: ${stderr}`))));
  });
  const floor = [];
  const fresh = [];
  const resume = [];
  for (let index = 0; index < RUNS; index++) {
    started = performance.now();
    await run(['--version']);
    floor.push(performance.now() - started);
    started = performance.now();
    await run(['--cwd', freshWorkspace, '--base-url', url, '-p', 'a new session']);
    fresh.push(firstRequestAt - started);
    started = performance.now();
    await run(['--cwd', workspace, '--base-url', url, '--continue', '-p', 'next question']);
    resume.push(firstRequestAt - started);
  }
  console.log(`--continue -p with ${MESSAGES} messages: spawn to first request median ${ms(median(resume))}; a new session ${ms(median(fresh))}; nib --version ${ms(median(floor))} (goal <= 300 ms)`);

  // ---- 3. the same session resumed in the TUI
  const {startNib, cleanup} = await import('./pty.mjs');
  const compared = builds();
  const shown = new Map(compared.map(([label]) => [label, []]));
  for (let index = 0; index < Math.ceil(RUNS / 2); index++) {
    for (const [label, cli] of compared) {
      // A copy each time: a resumed session records that it was resumed.
      const data = join(base, `tui-${index}${label ? '-baseline' : ''}`);
      await cp(tuiData, data, {recursive: true});
      const nib = await startNib(url, ['--continue'], cli, {env: {XDG_DATA_HOME: data}, cwd: workspace});
      const {at} = await nib.waitFor(`Answer ${MESSAGES / 4 - 1}.`, {timeoutMs: 120_000});
      const usage = await nib.quit();
      shown.get(label).push({ms: at - nib.started, cpuS: usage.cpuS, rssMb: usage.rssMb});
    }
  }
  await cleanup();
  server.close();
  for (const [label, runs] of shown) {
    console.log(
      `--continue in the TUI${label} with ${MESSAGES} messages: spawn to the last answer on screen median ${ms(median(runs.map(run => run.ms)))}; ` +
        `CPU median ${median(runs.map(run => run.cpuS)).toFixed(2)} s; peak RSS median ${median(runs.map(run => run.rssMb)).toFixed(1)} MB (${runs.length} runs)`,
    );
  }
} finally {
  await rm(base, {recursive: true, force: true});
}
