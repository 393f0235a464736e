// Resizing a long session in a real terminal (tmux, 120x40, 50,000 lines of history): the bytes
// nib writes for each width change, next to the bytes it wrote to print the session in the first
// place (what a resize that reprints the transcript costs) and to the screen's size, all measured
// in the same run. Also how often the first, a middle and the last line of the answer end up in
// the terminal's whole history (1 is right).
// Run: npm run build && node bench/resize.mjs   (NIB_BENCH_CLI=/other/dist/cli.js for another build)
import {mkdtemp, rm, stat} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {CLI, importSources, requireBuild} from './support.mjs';

requireBuild();
const {tmux, server: serverModule} = await importSources({tmux: 'test/support/tmux.ts', server: 'test/support/openai-server.ts'});
const {startTerminal} = tmux;
const {startOpenAiServer, sse} = serverModule;

const IDLE = 'ask nib to do something';
const PARAGRAPHS = 1000;
const answer = Array.from({length: PARAGRAPHS}, (_, index) => `answer line ${String(index + 1).padStart(4, '0')} of the story`).join('\n\n');
const work = await mkdtemp(join(tmpdir(), 'nib-bench-resize-'));
const log = join(work, 'pane.out');
const server = await startOpenAiServer([sse.text(answer)]);
const term = await startTerminal({
  command: [process.execPath, CLI, 'tell me the numbered story please'],
  cwd: work,
  env: {
    HOME: work,
    XDG_CONFIG_HOME: join(work, '.config'),
    XDG_DATA_HOME: join(work, '.data'),
    XDG_STATE_HOME: join(work, '.state'),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TERM: 'screen-256color',
    LANG: 'C.UTF-8',
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: 'bench',
    NIB_MODEL: 'nib-bench-model',
  },
  width: 120,
  height: 40,
  historyLimit: 50_000,
});
const bytes = async () => (await stat(log).catch(() => ({size: 0}))).size;

/** Until the prompt is back and the screen has not changed for 400 ms. */
async function settled() {
  let previous = '';
  let since = Date.now();
  await term.waitFor(screen => {
    if (screen !== previous) [previous, since] = [screen, Date.now()];
    return screen.includes(IDLE) && Date.now() - since > 400;
  }, {timeoutMs: 30_000});
}

try {
  await term.tmux('pipe-pane', '-o', `cat >> ${log}`);
  await term.waitFor(screen => screen.includes(`answer line ${PARAGRAPHS}`) && screen.includes(IDLE), {timeoutMs: 60_000});
  await settled();
  const session = await bytes();
  const perResize = [];
  for (const width of [80, 100, 120]) {
    const before = await bytes();
    await term.tmux('resize-window', '-x', String(width), '-y', '40');
    await settled();
    perResize.push({width, written: (await bytes()) - before});
  }
  await term.tmux('pipe-pane');
  const history = await term.history();
  const count = needle => history.split(needle).length - 1;

  console.log(`resize bench: tmux 120x40, ${PARAGRAPHS}-paragraph answer, ${CLI}`);
  console.log(`printing the session: ${session.toLocaleString('en')} bytes (what a resize that reprints the transcript writes)`);
  console.log(`one screen: 120 x 40 = ${(120 * 40).toLocaleString('en')} cells`);
  for (const {width, written} of perResize) console.log(`resize to ${width} columns: ${written.toLocaleString('en')} bytes`);
  const total = perResize.reduce((sum, {written}) => sum + written, 0);
  console.log(`three resizes: ${total.toLocaleString('en')} bytes (goal < ~60,000: two screens per resize)`);
  const lines = [1, PARAGRAPHS / 2, PARAGRAPHS].map(line => `answer line ${String(line).padStart(4, '0')} `);
  console.log(`in the whole history: ${lines.map(line => `"${line.trim()}" ${count(line)}x`).join(', ')}, the prompt ${count(IDLE)}x (1 is right)`);
} finally {
  await term.close();
  await server.close();
  await rm(work, {recursive: true, force: true});
}
