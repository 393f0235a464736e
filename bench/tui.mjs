// The interactive session in a 40x120 pseudo-terminal (util-linux `script`), against the loopback
// server. Printed, not asserted (#4):
//   1. spawn to the first frame with the input ready (goal <= 150 ms)
//   2. a 20,000-token answer at full speed: terminal bytes / answer bytes (goal <= 1.2), CPU vs the
//      raw openai SDK script in the same run (goal <= 1.3x), peak RSS (goal <= 120 MB)
//   3. 2,000 tokens at 100 tokens/s: CPU-seconds per 1,000 tokens (goal <= 0.6), bytes per answer
//      byte (goal <= 3)
//   4. keystroke-to-echo latency with 1,000 finished blocks in the transcript vs none
// Terminal bytes are what the pty delivers (the line discipline turns \n into \r\n).
// Run: npm run build && npx node bench/tui.mjs   (BENCH_RUNS=5 for more startup samples)
// NIB_BENCH_BASELINE=other/dist/cli.js runs every part for that build too, in the same run.
import {spawn} from 'node:child_process';
import {existsSync} from 'node:fs';
import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import stripAnsi from 'strip-ansi';
import {loadTestServer} from './support.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// NIB_TEST_CLI measures another build (as the tmux tests allow).
const CLI = process.env.NIB_TEST_CLI ?? join(ROOT, 'dist', 'cli.js');
const ROWS = 40;
const COLS = 120;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
// Extra node flags for nib, e.g. BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile it.
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
// What the prompt input shows when nib is idle and ready for a key (PromptInput's placeholder).
const IDLE = process.env.BENCH_IDLE_TEXT ?? 'ask nib to do something';

const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const quote = value => `'${String(value).replaceAll("'", `'\\''`)}'`;

if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
if (!existsSync('/usr/bin/time')) throw new Error('/usr/bin/time is needed for CPU and peak RSS');

const work = await mkdtemp(join(tmpdir(), 'nib-bench-tui-'));
const {startOpenAiServer, sse} = await loadTestServer();

/** The words of a long answer: ~4 characters per token, a line every 16 tokens, a paragraph every 8 lines. */
function makeAnswer(tokens, end = 'ENDOFANSWER') {
  const words = ['the', 'loop', 'reads', 'files', 'and', 'streams', 'tokens', 'to', 'the', 'screen'];
  let answer = '';
  for (let i = 0; i < tokens; i++) {
    answer += words[i % words.length];
    answer += i % 128 === 127 ? '\n\n' : i % 16 === 15 ? '\n' : ' ';
  }
  return `${answer.trimEnd()} ${end}\n`;
}

/**
 * nib in a pty of ROWS x COLS under /usr/bin/time. Output is kept raw (for byte counts) and
 * waited on as ANSI-stripped text.
 */
async function startNib(serverUrl, args = [], cli = CLI) {
  const home = await mkdtemp(join(work, 'home-'));
  const project = join(home, 'project');
  await mkdir(project);
  const timeFile = join(home, 'time');
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_STATE_HOME: join(home, 'state'),
    PATH: process.env.PATH,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    OPENAI_BASE_URL: serverUrl,
    OPENAI_API_KEY: 'bench',
    NIB_MODEL: 'bench-model',
  };
  const inner = [
    `stty rows ${ROWS} cols ${COLS};`,
    `exec /usr/bin/time -o ${quote(timeFile)} -f '%e %U %S %M'`,
    [process.execPath, ...NODE_ARGS, cli, ...args].map(quote).join(' '),
  ].join(' ');
  const started = performance.now();
  // Its own process group, so a bench that fails midway takes script, time and nib down with it.
  const child = spawn('script', ['-q', '-e', '-c', inner, '/dev/null'], {cwd: project, env, stdio: ['pipe', 'pipe', 'inherit'], detached: true});
  const killGroup = () => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  process.once('exit', killGroup);
  const chunks = [];
  let bytes = 0;
  let text = '';
  let raw = '';
  const waiters = new Set();
  child.stdout.on('data', chunk => {
    chunks.push(chunk);
    bytes += chunk.length;
    raw += chunk.toString('utf8');
    text = text + stripAnsi(chunk.toString('utf8'));
    for (const waiter of waiters) waiter();
  });
  const exited = new Promise(resolve => child.on('close', resolve));
  exited.then(() => process.off('exit', killGroup));
  // Keys sent while nib is already leaving meet a closed pipe; that is not a failure.
  child.stdin.on('error', () => {});

  /**
   * Resolves with the time (performance.now) at which output past `from` contains `needle`:
   * the ANSI-stripped output, or with `raw` the bytes as written.
   */
  const waitFor = (needle, {from = 0, timeoutMs = 60_000, isRaw = false} = {}) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const at = (isRaw ? raw : text).indexOf(needle, from);
        if (at < 0) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve({at: performance.now(), index: at});
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`bench: no "${needle}" within ${timeoutMs} ms; last output:\n${text.slice(-2000)}`));
      }, timeoutMs);
      if (!check()) waiters.add(check);
    });

  return {
    started,
    cpuMs: () => cpuOfTree(child.pid),
    waitFor,
    write: data => child.stdin.write(data),
    bytes: () => bytes,
    raw: () => raw,
    textLength: () => text.length,
    rawLength: () => raw.length,
    tail: () => text.slice(-3000),
    /** Leaves (Ctrl+C clears any input, Ctrl+D on empty input exits), then reads /usr/bin/time. */
    async quit() {
      // Ctrl+C clears any input (or arms the exit), Ctrl+D leaves on empty input, a second
      // Ctrl+C leaves too; whichever lands first ends nib and the rest meet a closed pipe.
      let done = false;
      exited.then(() => (done = true));
      for (const key of ['\u0003', '\u0004', '\u0003']) {
        if (done) break;
        child.stdin.write(key);
        await Promise.race([exited, new Promise(resolve => setTimeout(resolve, 200))]);
      }
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      const line = (await readFile(timeFile, 'utf8').catch(() => '')).trim().split('\n').at(-1) ?? '';
      const [wall, user, sys, rssKb] = line.split(' ').map(Number);
      await rm(home, {recursive: true, force: true});
      return {wallS: wall, cpuS: user + sys, rssMb: rssKb / 1024};
    },
  };
}

/**
 * CPU (user + sys, ms, in 10 ms clock ticks) used so far by a process and its descendants (the
 * pty's `script`, `time` and nib): steadier than wall time on a busy machine.
 */
async function cpuOfTree(pid) {
  let total = 0;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (!stat) return 0;
  const [utime, stime] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(11, 13).map(Number);
  total += (utime + stime) * 10;
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).trim().split(' ').filter(Boolean);
  for (const child of children) total += await cpuOfTree(Number(child));
  return total;
}

/** The raw openai SDK streaming the same answer to a pipe: the floor for CPU. */
async function rawSdk(serverUrl) {
  const dir = join(ROOT, '.nib-bench');
  await mkdir(dir, {recursive: true});
  const script = join(dir, 'raw-sdk-tui.mjs');
  await writeFile(
    script,
    [
      "import OpenAI from 'openai';",
      'const client = new OpenAI({baseURL: process.argv[2], apiKey: "bench", maxRetries: 0});',
      'const stream = await client.chat.completions.create({model: "bench-model", messages: [{role: "user", content: "x"}], stream: true, stream_options: {include_usage: true}});',
      'for await (const chunk of stream) { const text = chunk.choices[0]?.delta?.content; if (text) process.stdout.write(text); }',
    ].join('\n'),
  );
  const timeFile = join(dir, 'raw-sdk-time');
  const child = spawn('/usr/bin/time', ['-o', timeFile, '-f', '%e %U %S %M', process.execPath, script, serverUrl], {stdio: ['ignore', 'pipe', 'inherit']});
  let bytes = 0;
  child.stdout.on('data', chunk => (bytes += chunk.length));
  await new Promise(resolve => child.on('close', resolve));
  const [wall, user, sys, rssKb] = (await readFile(timeFile, 'utf8')).trim().split('\n').at(-1).split(' ').map(Number);
  return {wallS: wall, cpuS: user + sys, rssMb: rssKb / 1024, bytes};
}


/** Streams `answer` for the first prompt, measures the session, returns figures. */
async function streamRun(answer, response, cli = CLI) {
  const server = await startOpenAiServer(() => response);
  try {
    const nib = await startNib(server.url, [], cli);
    await nib.waitFor(IDLE, {timeoutMs: 10_000});
    // Typed at the idle prompt, so the byte count starts at the submit and excludes the startup.
    await submit(nib, 'write a long answer');
    const before = nib.bytes();
    await arrived(server, nib);
    const first = performance.now();
    const end = await nib.waitFor('ENDOFANSWER', {timeoutMs: 300_000});
    await nib.waitFor(IDLE, {from: end.index});
    const during = nib.bytes() - before;
    const total = nib.bytes();
    if (process.env.BENCH_RAW_DIR) await writeFile(join(process.env.BENCH_RAW_DIR, `tui-${answer.length}.raw`), nib.raw());
    const usage = await nib.quit();
    const answerBytes = Buffer.byteLength(answer);
    return {...usage, during, total, answerBytes, streamS: (end.at - first) / 1000};
  } finally {
    await server.close();
  }
}

/** Waits for the prompt to reach the server; fails with the screen's text after 15 s. */
async function arrived(server, nib) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bench: the prompt never reached the server; last output:\n${nib.tail()}`)), 15_000);
  });
  try {
    await Promise.race([server.waitForRequests(1), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Types a prompt and Enter. Until Ink turns raw mode on (after the first frame), the terminal
 * itself echoes keys and turns Enter into a newline inside the prompt, and the app's echo cannot
 * be told apart from it in every rendering mode; so this waits a settle time first (not measured).
 */
async function submit(nib, prompt) {
  await new Promise(resolve => setTimeout(resolve, 1500));
  const from = nib.textLength();
  nib.write(prompt);
  await nib.waitFor(prompt, {from, timeoutMs: 10_000});
  nib.write('\r');
}

async function typingLatency(nib, count = 30) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const char = 'abcdefghij'[i % 10];
    const from = nib.textLength();
    const sent = performance.now();
    nib.write(char);
    const echoed = await nib.waitFor(char, {from, timeoutMs: 5000});
    samples.push(echoed.at - sent);
    await new Promise(resolve => setTimeout(resolve, 40));
  }
  return samples;
}

let idleCpuS = 0;
const builds = [['', CLI], ...(process.env.NIB_BENCH_BASELINE ? [[' (baseline)', process.env.NIB_BENCH_BASELINE]] : [])];
// `node bench/tui.mjs 2 4` runs only those parts.
const parts = process.argv.slice(2).map(Number);
const wanted = part => parts.length === 0 || parts.includes(part);
const print = line => console.log(line);

try {
  print(`tui bench: ${ROWS}x${COLS} pty, node ${process.version}, ${new Date().toISOString()}`);

  // 1. Spawn to first frame with the input ready; the builds interleaved, so drift hits each alike.
  if (wanted(1)) {
    const server = await startOpenAiServer(() => sse.text('hi'));
    const runs = new Map(builds.map(([label]) => [label, {frames: [], times: [], rss: [], cpu: [], frameCpu: []}]));
    for (let i = 0; i < RUNS; i++) {
      for (const [label, cli] of builds) {
        const run = runs.get(label);
        const nib = await startNib(server.url, [], cli);
        const frame = await nib.waitFor(IDLE, {timeoutMs: 10_000});
        run.frames.push(frame.at - nib.started);
        run.frameCpu.push(await nib.cpuMs());
        // Input is ready when a key typed the moment the first frame shows comes back drawn by
        // the app, not echoed by the terminal while it is still in cooked mode: the app draws its
        // inverse-video cursor right after the character (ESC[7m), the terminal's echo does not.
        const from = nib.rawLength();
        nib.write('x');
        const ready = await nib.waitFor('x\u001B[7m', {from, timeoutMs: 10_000, isRaw: true});
        run.times.push(ready.at - nib.started);
        const usage = await nib.quit();
        run.rss.push(usage.rssMb);
        run.cpu.push(usage.cpuS);
      }
    }
    await server.close();
    for (const [label] of builds) {
      const {frames, times, rss, cpu, frameCpu} = runs.get(label);
      if (label === '') idleCpuS = median(cpu);
      print(
        `1${label}. spawn to first frame: median ${median(frames).toFixed(0)} ms (CPU ${median(frameCpu).toFixed(0)} ms); to input ready (a key typed at the first frame drawn by the app): ` +
          `median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)} (${RUNS} runs; goal <= 150 ms); ` +
          `an idle session start+quit: ${median(cpu).toFixed(2)} CPU-s, peak RSS ${median(rss).toFixed(1)} MB`,
      );
    }
  }

  // 2. 20,000 tokens at full speed, against the raw SDK on the same server and answer.
  for (const [label, cli] of wanted(2) ? builds : []) {
    const answer = makeAnswer(20_000);
    const response = sse.text(answer, {chunkSize: 4});
    const nib = await streamRun(answer, response, cli);
    const server = await startOpenAiServer(() => response);
    const sdk = await rawSdk(server.url);
    await server.close();
    print(
      `2${label}. 20,000 tokens full speed (${(nib.answerBytes / 1024).toFixed(0)} KiB, ${response.frames.length} SSE events): ` +
        `terminal bytes / answer bytes ${(nib.during / nib.answerBytes).toFixed(2)} during the answer, ${(nib.total / nib.answerBytes).toFixed(2)} whole session (goal <= 1.2); ` +
        `CPU nib ${nib.cpuS.toFixed(2)} s vs raw SDK ${sdk.cpuS.toFixed(2)} s = ${(nib.cpuS / sdk.cpuS).toFixed(2)}x (goal <= 1.3x); ` +
        `peak RSS ${nib.rssMb.toFixed(1)} MB (goal <= 120; raw SDK ${sdk.rssMb.toFixed(1)} MB); wall ${nib.wallS.toFixed(2)} s`,
    );
  }

  // 3. 2,000 tokens at 100 tokens/s.
  for (const [label, cli] of wanted(3) ? builds : []) {
    // Two 4-character tokens per event every 20 ms: the server's timer overhead per write would
    // make one token per 10 ms noticeably slower than 100 tokens/s.
    const answer = makeAnswer(2_000);
    const response = sse.slow(sse.text(answer, {chunkSize: 8}), 20);
    const nib = await streamRun(answer, response, cli);
    print(
      `3${label}. 2,000 tokens at 100 tokens/s (measured ${(2000 / nib.streamS).toFixed(0)} tokens/s over ${nib.streamS.toFixed(1)} s): ` +
        `${(nib.cpuS / 2).toFixed(2)} CPU-s per 1,000 tokens for the whole process` +
        (idleCpuS > 0 ? `, ${((nib.cpuS - idleCpuS) / 2).toFixed(2)} without an idle session's ${idleCpuS.toFixed(2)} s` : '') +
        ` (goal <= 0.6); ` +
        `${(nib.during / nib.answerBytes).toFixed(2)} terminal bytes per answer byte (goal <= 3)`,
    );
  }

  // 4. Keystroke-to-echo latency: empty transcript vs 1,000 finished blocks.
  if (wanted(4)) {
    const server = await startOpenAiServer(() => sse.text(Array.from({length: 1000}, (_, i) => `Paragraph ${i + 1}.`).join('\n\n') + '\n\nENDOFANSWER\n', {chunkSize: 64}));
    const empty = await startNib(server.url);
    await empty.waitFor(IDLE, {timeoutMs: 10_000});
    const none = await typingLatency(empty);
    await empty.quit();
    const full = await startNib(server.url);
    await full.waitFor(IDLE, {timeoutMs: 10_000});
    await submit(full, 'a thousand paragraphs');
    await arrived(server, full);
    const end = await full.waitFor('ENDOFANSWER', {timeoutMs: 120_000});
    await full.waitFor(IDLE, {from: end.index});
    const many = await typingLatency(full);
    await full.quit();
    await server.close();
    const fmt = samples => `median ${median(samples).toFixed(1)} ms, p90 ${percentile(samples, 0.9).toFixed(1)} ms`;
    print(`4. keystroke to echo (${none.length} keys): empty transcript ${fmt(none)}; after 1,000 finished blocks ${fmt(many)}`);
  }
} finally {
  await rm(work, {recursive: true, force: true});
}
