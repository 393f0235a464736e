// The interactive session in a 40x120 pseudo-terminal (util-linux `script`), against the loopback
// server. Printed, not asserted (#4):
//   1. spawn to the prompt on screen, to input ready (goal <= 150 ms), to the app's own first frame
//   2. a 20,000-token answer at full speed: terminal bytes / answer bytes (goal <= 1.2), CPU vs the
//      raw openai SDK script in the same run (goal <= 1.3x), peak RSS (goal <= 120 MB)
//   3. 2,000 tokens at 100 tokens/s: CPU-seconds per 1,000 tokens (goal <= 0.6), bytes per answer
//      byte (goal <= 3)
//   Parts 2 and 3 also measure their floors in the same run: the raw SDK receiving the same stream
//   (it draws nothing), a bare Ink app with nib's layout drawing the same answer (no network), and
//   that app fed by the raw SDK from the same server (the two in one process).
//   4. keystroke-to-echo latency with 1,000 finished blocks in the transcript vs none
// Terminal bytes are what the pty delivers (the line discipline turns \n into \r\n).
// Run: npm run build && npx node bench/tui.mjs   (BENCH_RUNS=5 for more startup samples)
// NIB_BENCH_BASELINE=other/dist/cli.js runs every part for that build too, in the same run.
// BENCH_STREAM_RUNS=n runs parts 2 and 3 n times, the builds interleaved, and prints medians.
import {build} from 'esbuild';
import {spawn} from 'node:child_process';
import {mkdir, readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {arrived, cleanup, CLI, COLS, IDLE, percentile, ROWS, startNib, submit, turnEnded, typingLatency} from './pty.mjs';
import {builds, loadTestServer, median, ROOT} from './support.mjs';
import {inkPatches} from '../scripts/ink-patches.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const STREAM_RUNS = Number(process.env.BENCH_STREAM_RUNS ?? 1);
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

/** The raw openai SDK streaming the same answer to a pipe: the floor for CPU. */
async function rawSdk(serverUrl) {
  const dir = join(ROOT, '.nib-bench');
  await mkdir(dir, {recursive: true});
  const script = join(ROOT, 'bench', 'raw-sdk.mjs');
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
    const from = nib.textLength();
    await submit(nib, 'write a long answer');
    const before = nib.bytes();
    await arrived(server, nib);
    const first = performance.now();
    const end = await turnEnded(nib, from);
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

let floorBuilt;

/**
 * bench/ink-floor.mjs bundled as nib is (production React, minified, inkPatches from
 * scripts/ink-patches.mjs; not nib's own frame writer), drawing `answer` in the pty:
 * 'paced' as part 3 streams, 'full' as fast as it can; or, with `serverUrl`, as the raw SDK
 * receives it from that server. Its CPU, peak RSS and bytes per answer byte.
 */
async function inkFloor(answer, mode, serverUrl) {
  const dir = join(ROOT, '.nib-bench');
  await mkdir(dir, {recursive: true});
  const file = join(dir, 'floor-answer.txt');
  await writeFile(file, answer);
  const bundle = join(dir, 'floor', 'ink-floor.js');
  floorBuilt ??= build({
    entryPoints: [join(ROOT, 'bench', 'ink-floor.mjs')],
    outdir: join(dir, 'floor'),
    // Split like nib's build, so Ink's devtools (loaded with import() only when DEV=true) stay out.
    splitting: true,
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    define: {'process.env.NODE_ENV': '"production"'},
    external: ['react-devtools-core'],
    banner: {js: "import {createRequire as __floorRequire} from 'node:module'; const require = __floorRequire(import.meta.url);"},
    plugins: inkPatches(),
    logLevel: 'warning',
  });
  await floorBuilt;
  // Its start and quit alone, to tell them from the drawing.
  const source = serverUrl ?? file;
  const idle = await startNib('', [source, mode], bundle);
  await idle.waitFor(IDLE, {timeoutMs: 20_000});
  const idleUsage = await idle.quit();
  const floor = await startNib('', [source, mode], bundle);
  await floor.waitFor(IDLE, {timeoutMs: 20_000});
  // Past the first frame, so raw mode is on and the key reaches the app.
  await new Promise(resolve => setTimeout(resolve, 1500));
  const before = floor.bytes();
  floor.write('x');
  await floor.waitFor('ENDOFANSWER', {timeoutMs: 120_000});
  await new Promise(resolve => setTimeout(resolve, 300));
  const during = floor.bytes() - before;
  const usage = await floor.quit();
  return {...usage, idleCpuS: idleUsage.cpuS, bytesPerByte: during / Buffer.byteLength(answer)};
}

/** Runs `measure` against a loopback server that answers every request with `response`. */
async function withServer(response, measure) {
  const server = await startOpenAiServer(() => response);
  try {
    return await measure(server.url);
  } finally {
    await server.close();
  }
}

let idleCpuS = 0;
const compared = builds(undefined, CLI);
// `node bench/tui.mjs 2 4` runs only those parts.
const parts = process.argv.slice(2).map(Number);
const wanted = part => parts.length === 0 || parts.includes(part);
const print = line => console.log(line);

try {
  print(`tui bench: ${ROWS}x${COLS} pty, node ${process.version}, ${new Date().toISOString()}`);

  // 1. Spawn to first frame with the input ready; the builds interleaved, so drift hits each alike.
  if (wanted(1)) {
    const server = await startOpenAiServer(() => sse.text('hi'));
    const runs = new Map(compared.map(([label]) => [label, {frames: [], times: [], apps: [], rss: [], cpu: [], frameCpu: []}]));
    for (let i = 0; i < RUNS; i++) {
      for (const [label, cli] of compared) {
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
        // The app's own first frame: the key hints under the prompt are Ink's, not the early line's.
        const app = await nib.waitFor('ctrl+d exit', {timeoutMs: 10_000});
        run.apps.push(app.at - nib.started);
        const usage = await nib.quit();
        run.rss.push(usage.rssMb);
        run.cpu.push(usage.cpuS);
      }
    }
    await server.close();
    for (const [label] of compared) {
      const {frames, times, apps, rss, cpu, frameCpu} = runs.get(label);
      if (label === '') idleCpuS = median(cpu);
      print(
        `1${label}. spawn to the prompt on screen: median ${median(frames).toFixed(0)} ms (CPU ${median(frameCpu).toFixed(0)} ms); to input ready (a key typed then is drawn by nib, not echoed by the terminal): ` +
          `median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)} (${RUNS} runs; goal <= 150 ms); ` +
          `to the app's first frame (its key hints): median ${median(apps).toFixed(0)} ms; ` +
          `an idle session start+quit: ${median(cpu).toFixed(2)} CPU-s, peak RSS ${median(rss).toFixed(1)} MB`,
      );
    }
  }

  // 2. 20,000 tokens at full speed, against the raw SDK on the same server and answer. With
  // BENCH_STREAM_RUNS=n, n rounds with the builds and the SDK + Ink floor interleaved (each run next
  // to its own raw SDK run), and the medians: single runs drift with the machine by more than a
  // change is worth.
  if (wanted(2)) {
    const answer = makeAnswer(20_000);
    const response = sse.text(answer, {chunkSize: 4});
    const runs = new Map(compared.map(([label]) => [label, []]));
    const floors = [];
    for (let round = 0; round < STREAM_RUNS; round++) {
      for (const [label, cli] of compared) {
        const nib = await streamRun(answer, response, cli);
        const sdk = await withServer(response, rawSdk);
        runs.get(label).push({...nib, sdkCpuS: sdk.cpuS, sdkRssMb: sdk.rssMb});
      }
      const both = await withServer(response, url => inkFloor(answer, 'full', url));
      const sdk = await withServer(response, rawSdk);
      floors.push({...both, ratio: both.cpuS / sdk.cpuS});
    }
    const floor = await inkFloor(answer, 'full');
    print(
      `2 (Ink floor). a bare Ink app (bench/ink-floor.mjs, bundled like nib) with nib's layout drawing the same answer four characters per event loop turn: ` +
        `CPU ${floor.cpuS.toFixed(2)} s (${floor.idleCpuS.toFixed(2)} s of it its start and quit), peak RSS ${floor.rssMb.toFixed(1)} MB, ${floor.bytesPerByte.toFixed(2)} terminal bytes per answer byte`,
    );
    const of = (values, digits = 2) => (values.length > 1 ? ` (${values.map(value => value.toFixed(digits)).join(', ')})` : '');
    print(
      `2 (SDK + Ink floor). the same app fed by the raw SDK from the same server, in one process${floors.length > 1 ? ` (medians of ${floors.length} runs, in the same rounds)` : ''}: ` +
        `CPU ${median(floors.map(run => run.cpuS)).toFixed(2)} s (${median(floors.map(run => run.idleCpuS)).toFixed(2)} s of it its start and quit) = ${median(floors.map(run => run.ratio)).toFixed(2)}x the raw SDK${of(floors.map(run => run.ratio))}, ` +
        `peak RSS ${median(floors.map(run => run.rssMb)).toFixed(1)} MB${of(floors.map(run => run.rssMb), 1)}`,
    );
    for (const [label] of compared) {
      const all = runs.get(label);
      const ratios = all.map(run => run.cpuS / run.sdkCpuS);
      print(
        `2${label}. 20,000 tokens full speed (${(all[0].answerBytes / 1024).toFixed(0)} KiB, ${response.frames.length} SSE events${all.length > 1 ? `; medians of ${all.length} runs` : ''}): ` +
          `terminal bytes / answer bytes ${median(all.map(run => run.during / run.answerBytes)).toFixed(2)} during the answer, ${median(all.map(run => run.total / run.answerBytes)).toFixed(2)} whole session (goal <= 1.2); ` +
          `CPU nib ${median(all.map(run => run.cpuS)).toFixed(2)} s vs raw SDK ${median(all.map(run => run.sdkCpuS)).toFixed(2)} s = ${median(ratios).toFixed(2)}x${of(ratios)} (goal <= 1.3x); ` +
          `peak RSS ${median(all.map(run => run.rssMb)).toFixed(1)} MB${of(all.map(run => run.rssMb), 1)} (goal <= 120; raw SDK ${median(all.map(run => run.sdkRssMb)).toFixed(1)} MB); wall ${median(all.map(run => run.wallS)).toFixed(2)} s`,
      );
    }
  }

  // 3. 2,000 tokens at 100 tokens/s; BENCH_STREAM_RUNS as in part 2.
  if (wanted(3)) {
    // Two tokens per event (a token here is a word and its space, ~5.4 characters), one event
    // every 20 ms: 1,000 events in 20 s.
    const answer = makeAnswer(2_000);
    const response = sse.slow(sse.text(answer, {chunkSize: Math.ceil(answer.length / 1000)}), 20, {paced: true});
    const runs = new Map(compared.map(([label]) => [label, []]));
    const floors = [];
    for (let round = 0; round < STREAM_RUNS; round++) {
      for (const [label, cli] of compared) runs.get(label).push(await streamRun(answer, response, cli));
      // The SDK + Ink floor in the same round (the app fed by the raw SDK, one process).
      floors.push(await withServer(response, url => inkFloor(answer, 'paced', url)));
    }
    const floorCpu = floors.map(run => run.cpuS / 2);
    print(
      `3 (SDK + Ink floor). the bare Ink app fed by the raw SDK at the same rate, in one process${floors.length > 1 ? ` (medians of ${floors.length} runs, in the same rounds)` : ''}: ` +
        `${median(floorCpu).toFixed(2)} CPU-s per 1,000 tokens${floors.length > 1 ? ` (${floorCpu.map(value => value.toFixed(2)).join(', ')})` : ''} (${median(floors.map(run => run.idleCpuS)).toFixed(2)} s of it its start and quit)`,
    );
    for (const [label] of compared) {
      const all = runs.get(label);
      const perThousand = all.map(run => run.cpuS / 2);
      const cpu = median(perThousand);
      const streamS = median(all.map(run => run.streamS));
      print(
        `3${label}. 2,000 tokens at 100 tokens/s (measured ${(2000 / streamS).toFixed(0)} tokens/s over ${streamS.toFixed(1)} s${all.length > 1 ? `; medians of ${all.length} runs` : ''}): ` +
          `${cpu.toFixed(2)} CPU-s per 1,000 tokens for the whole process${all.length > 1 ? ` (${perThousand.map(value => value.toFixed(2)).join(', ')})` : ''}` +
          (idleCpuS > 0 ? `, ${(cpu - idleCpuS / 2).toFixed(2)} without an idle session's ${idleCpuS.toFixed(2)} s` : '') +
          ` (goal <= 0.6); ` +
          `${median(all.map(run => run.during / run.answerBytes)).toFixed(2)} terminal bytes per answer byte (goal <= 3)`,
      );
    }
  }

  // 3, floors: the raw SDK receiving the same stream at the same rate (no drawing), and a bare
  // Ink app with nib's layout drawing the same answer at the same rate (no network).
  if (wanted(3)) {
    const answer = makeAnswer(2_000);
    const server = await startOpenAiServer(() => sse.slow(sse.text(answer, {chunkSize: Math.ceil(answer.length / 1000)}), 20, {paced: true}));
    const sdk = await rawSdk(server.url);
    await server.close();
    const floor = await inkFloor(answer, 'paced');
    print(
      `3 (floors). the raw SDK receiving the same stream at the same rate: ${(sdk.cpuS / 2).toFixed(2)} CPU-s per 1,000 tokens; ` +
        `a bare Ink app (bench/ink-floor.mjs, bundled like nib) with nib's layout drawing the same answer at the same frame rate: ` +
        `${(floor.cpuS / 2).toFixed(2)} CPU-s per 1,000 tokens (${floor.idleCpuS.toFixed(2)} s of it its start and quit), ${floor.bytesPerByte.toFixed(2)} terminal bytes per answer byte`,
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
    const from = full.textLength();
    await submit(full, 'a thousand paragraphs');
    await arrived(server, full);
    await turnEnded(full, from, 120_000);
    const many = await typingLatency(full);
    await full.quit();
    await server.close();
    const fmt = samples => `median ${median(samples).toFixed(1)} ms, p90 ${percentile(samples, 0.9).toFixed(1)} ms`;
    print(`4. keystroke to echo (${none.length} keys): empty transcript ${fmt(none)}; after 1,000 finished blocks ${fmt(many)}`);
  }
} finally {
  await cleanup();
}
