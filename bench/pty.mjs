// The interactive session in a pseudo-terminal (util-linux `script`) under /usr/bin/time, for the
// benches that drive the TUI (tui.mjs, long-session.mjs): start it, type, wait for text, quit.
import {spawn} from 'node:child_process';
import {existsSync} from 'node:fs';
import {mkdir, mkdtemp, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {StringDecoder} from 'node:string_decoder';
import {fileURLToPath} from 'node:url';
import stripAnsi from 'strip-ansi';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// NIB_TEST_CLI measures another build (as the tmux tests allow).
export const CLI = process.env.NIB_TEST_CLI ?? join(ROOT, 'dist', 'cli.js');
export const ROWS = 40;
export const COLS = 120;
// Extra node flags for nib, e.g. BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile it.
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
// What the prompt input shows when nib is idle and ready for a key (PromptInput's placeholder).
export const IDLE = process.env.BENCH_IDLE_TEXT ?? 'ask nib to do something';
/** The prompt line's placeholder while a turn runs. */
export const BUSY = process.env.BENCH_BUSY_TEXT ?? 'working…';

export const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const quote = value => `'${String(value).replaceAll("'", `'\\''`)}'`;

if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
if (!existsSync('/usr/bin/time')) throw new Error('/usr/bin/time is needed for CPU and peak RSS');

/** Where the sessions' homes go; removed by cleanup(). */
const work = await mkdtemp(join(tmpdir(), 'nib-bench-pty-'));
export const cleanup = () => rm(work, {recursive: true, force: true});

/**
 * nib in a pty of ROWS x COLS under /usr/bin/time. Output is kept raw (for byte counts) and
 * waited on as ANSI-stripped text. `env` adds to (or replaces) its environment; `cwd` is where it
 * starts (a new empty project by default).
 */
export async function startNib(serverUrl, args = [], cli = CLI, {env: extraEnv = {}, cwd} = {}) {
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
    ...extraEnv,
  };
  const inner = [
    `stty rows ${ROWS} cols ${COLS};`,
    `exec /usr/bin/time -o ${quote(timeFile)} -f '%e %U %S %M'`,
    [process.execPath, ...NODE_ARGS, cli, ...args].map(quote).join(' '),
  ].join(' ');
  const started = performance.now();
  // Its own process group, so a bench that fails midway takes script, time and nib down with it.
  const child = spawn('script', ['-q', '-e', '-c', inner, '/dev/null'], {cwd: cwd ?? project, env, stdio: ['pipe', 'pipe', 'inherit'], detached: true});
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
  // One decoder for the stream: a character split between two reads (the … of the busy text)
  // must not turn into two replacement characters.
  const decoder = new StringDecoder('utf8');
  child.stdout.on('data', chunk => {
    chunks.push(chunk);
    bytes += chunk.length;
    const decoded = decoder.write(chunk);
    raw += decoded;
    text = text + stripAnsi(decoded);
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
    pid: child.pid,
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
export async function cpuOfTree(pid) {
  let total = 0;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (!stat) return 0;
  const [utime, stime] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(11, 13).map(Number);
  total += (utime + stime) * 10;
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).trim().split(' ').filter(Boolean);
  for (const child of children) total += await cpuOfTree(Number(child));
  return total;
}

/** Waits for the prompt to reach the server; fails with the screen's text after 15 s. */
export async function arrived(server, nib) {
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
 * Resolves once the turn started after `from` (an index into the screen's text) has ended: the
 * busy placeholder, then the idle one after it. Not a word of the answer: a finished block
 * already on screen is not written again, so a word streamed across two frames reaches the
 * terminal in two pieces.
 */
export async function turnEnded(nib, from, timeoutMs = 300_000) {
  const busy = await nib.waitFor(BUSY, {from, timeoutMs});
  return nib.waitFor(IDLE, {from: busy.index, timeoutMs});
}

/**
 * Types a prompt and Enter. Until Ink turns raw mode on (after the first frame), the terminal
 * itself echoes keys and turns Enter into a newline inside the prompt, and the app's echo cannot
 * be told apart from it in every rendering mode; so this waits a settle time first (not measured).
 */
export async function submit(nib, prompt) {
  await new Promise(resolve => setTimeout(resolve, 1500));
  const from = nib.textLength();
  nib.write(prompt);
  await nib.waitFor(prompt, {from, timeoutMs: 10_000});
  nib.write('\r');
}

export async function typingLatency(nib, count = 30) {
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
