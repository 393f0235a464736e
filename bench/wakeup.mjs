// What a piece of work costs when the process has just woken up, against the same work run hot:
// the floor under bench/tui.mjs part 3, where an event arrives every 20 ms and the process sleeps
// in between. The work is what every streamed event needs whoever reads it: parsing the chunk's
// JSON, and allocating a few objects. Printed, not asserted.
// Run: npx node bench/wakeup.mjs   (BENCH_RUNS: wake-ups per kind, 300 by default)
const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const GAP_MS = 20;
const chunk = JSON.stringify({
  id: 'chatcmpl-0123456789abcdef',
  object: 'chat.completion.chunk',
  created: 1_764_140_000,
  model: 'bench-model',
  choices: [{index: 0, delta: {content: 'the loop reads '}, finish_reason: null}],
});
const kinds = {
  [`JSON.parse of a ${chunk.length}-byte chunk`]: () => JSON.parse(chunk),
  'allocating 20 small objects': () => Array.from({length: 20}, (_, index) => ({index, text: `t${index}`})),
};

const microseconds = (work, count) => {
  const started = performance.now();
  for (let index = 0; index < count; index++) work();
  return ((performance.now() - started) / count) * 1000;
};

for (const [name, work] of Object.entries(kinds)) {
  microseconds(work, 10_000);
  const hot = microseconds(work, 10_000);
  let total = 0;
  for (let index = 0; index < RUNS; index++) {
    await new Promise(resolve => setTimeout(resolve, GAP_MS));
    total += microseconds(work, 1);
  }
  const woken = total / RUNS;
  console.log(`${name}: hot ${hot.toFixed(2)} us; first thing after ${GAP_MS} ms asleep ${woken.toFixed(1)} us (${(woken / hot).toFixed(0)}x, mean of ${RUNS})`);
}
