// A long interactive session: TURNS turns in one TUI (40x120 pty), each a prompt, a `list` tool
// call and a short answer, against the loopback server. Printed, not asserted:
//   - nib's RSS after turn 10 (the baseline) and every 50 turns after, each read 4 s after its
//     turn ended; goal: grows <= 20 MB
//   - keystroke to echo at turn 10 and at the last turn; goal: flat
// Run: npm run build && npx node bench/long-session.mjs   (BENCH_TURNS=200 by default)
// NIB_BENCH_BASELINE=other/dist/cli.js runs the same session with that build afterwards.
// BENCH_NODE_ARGS='--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=/tmp/heap' BENCH_HEAP=1 writes
// a heap snapshot at turn 10 and at the last turn, to see what the growth is made of.
import {readFile} from 'node:fs/promises';
import {cleanup, CLI, IDLE, percentile, startNib, submit, turnEnded, typingLatency} from './pty.mjs';
import {builds, loadTestServer, median} from './support.mjs';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const BASE_TURN = 10;
// RSS is read this long after its turn ends (the time is left out of the time per turn).
const AT_REST_MS = 4000;
const {startOpenAiServer, sse} = await loadTestServer();

/** nib's node process under the pty's process tree (script -> time -> node). */
async function nodePid(pid) {
  const argv0 = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0')[0];
  if (argv0 === process.execPath) return pid;
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).trim().split(' ').filter(Boolean);
  for (const child of children) {
    const found = await nodePid(Number(child));
    if (found) return found;
  }
  return null;
}

async function rssMb(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

/** One prompt after the first: the app is in raw mode by now, so no settle time is needed. */
async function turn(nib, server, n) {
  const prompt = `turn ${n}`;
  const from = nib.textLength();
  nib.write(prompt);
  await nib.waitFor(prompt, {from, timeoutMs: 10_000});
  nib.write('\r');
  await turnEnded(nib, from, 60_000);
  whole(server, n);
}

/** A turn that failed also ends idle: each must have sent its two requests (the prompt, the tool result). */
function whole(server, n) {
  if (server.requests.length !== 2 * n) throw new Error(`bench: turn ${n} ended after ${server.requests.length} requests, not ${2 * n}`);
}

/** Keystroke-to-echo samples, then Ctrl+C clears what was typed. */
async function echo(nib) {
  const samples = await typingLatency(nib, 20);
  const from = nib.textLength();
  nib.write('\u0003');
  await nib.waitFor(IDLE, {from, timeoutMs: 10_000});
  return samples;
}

async function session(cli) {
  // Every user prompt gets a tool call; every tool result gets the turn's answer.
  const server = await startOpenAiServer(request => {
    const messages = request.body.messages;
    const last = messages.at(-1);
    const n = messages.filter(message => message.role === 'user').length;
    if (last.role === 'user') return sse.toolCall('list', {}, {text: `Looking at the workspace for turn ${n}.`});
    return sse.text(`Turn ${n}: the workspace is listed above. Nothing else to do here; ENDTURN${n}.\n`);
  });
  const nib = await startNib(server.url, [], cli);
  const samples = [];
  try {
    await nib.waitFor(IDLE, {timeoutMs: 20_000});
    const pid = await nodePid(nib.pid);
    // The first prompt waits for raw mode (see submit); the rest are typed at once.
    const from = nib.textLength();
    await submit(nib, 'turn 1');
    await turnEnded(nib, from, 60_000);
    whole(server, 1);
    const started = performance.now();
    let echoAtBase = [];
    let restedMs = 0;
    for (let n = 2; n <= TURNS; n++) {
      await turn(nib, server, n);
      if (n === BASE_TURN || n % 50 === 0 || n === TURNS) {
        const at = performance.now() - started - restedMs;
        // Read at rest, as a person sees it between turns: the turns above run back to back.
        await new Promise(resolve => setTimeout(resolve, AT_REST_MS));
        samples.push({turn: n, rss: await rssMb(pid), at});
        restedMs += AT_REST_MS;
      }
      // After the sample: the echo's Ctrl+C redraws the hints 2 s later, which would count as activity.
      if (n === BASE_TURN) echoAtBase = await echo(nib);
      if (process.env.BENCH_HEAP && (n === BASE_TURN || n === TURNS)) {
        process.kill(pid, 'SIGUSR2');
        // The snapshot is written synchronously; a key echoed afterwards means it is done.
        await echo(nib);
      }
    }
    const echoAtEnd = await echo(nib);
    const usage = await nib.quit();
    return {samples, echoAtBase, echoAtEnd, peakRss: usage.rssMb, cpuS: usage.cpuS};
  } finally {
    await server.close();
  }
}

const fmt = values => `median ${median(values).toFixed(1)} ms, p90 ${percentile(values, 0.9).toFixed(1)} ms`;
const compared = builds(undefined, CLI);
try {
  console.log(`long session: ${TURNS} turns, each a prompt, a list call and an answer, node ${process.version}`);
  for (const [label, cli] of compared) {
    const result = await session(cli);
    const base = result.samples[0];
    const rss = result.samples.map(s => `turn ${s.turn} ${s.rss.toFixed(1)} MB`).join(', ');
    const last = result.samples.at(-1);
    console.log(`  nib${label}: RSS ${rss}; growth after turn ${BASE_TURN}: ${(last.rss - base.rss).toFixed(1)} MB (goal <= 20); peak ${result.peakRss.toFixed(1)} MB; CPU ${result.cpuS.toFixed(1)} s; ${((last.at - base.at) / (last.turn - base.turn)).toFixed(0)} ms per turn`);
    console.log(`  nib${label}: keystroke to echo at turn ${BASE_TURN}: ${fmt(result.echoAtBase)}; at turn ${TURNS}: ${fmt(result.echoAtEnd)} (goal: flat)`);
  }
} finally {
  await cleanup();
}
