import {existsSync, statSync} from 'node:fs';
import {mkdtemp, readFile, rm, stat} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {sse} from '../support/sse.js';
import type {Terminal} from '../support/tmux.js';
import {IDLE, nibPerTest} from './nib-session.js';

// Resizing a terminal that holds a long session: history stays as printed, once.

const start = nibPerTest();
const PROMPT = 'tell me the numbered story please';
const SHELL_MARK = 'shell-history-before-nib';
// Paragraphs, so the markdown renderer keeps one line each.
const answer = Array.from({length: 1000}, (_, index) => `answer line ${String(index + 1).padStart(4, '0')} of the story`).join('\n\n');

let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'nib-resize-'));
});
afterAll(async () => {
  await rm(scratch, {recursive: true, force: true});
});

const count = (text: string, needle: string) => text.split(needle).length - 1;

/**
 * Resizes and waits for the screen to settle with the prompt on it. tmux reflows the old screen at
 * once, prompt included, so a quiet screen alone could be nib not yet redrawn on a loaded machine:
 * once nib has written (`log`, a pipe-pane file, grows; tmux's reflow writes nothing there) a short
 * quiet spell is enough, and a resize that needs no redraw (a widening nothing on screen depends
 * on) gets a long one. Without `log`, a pipe is opened for the resize.
 */
async function resize(term: Terminal, width: number, height: number, log?: string) {
  const file = log ?? join(scratch, `resize-${width}x${height}-${Date.now()}.out`);
  if (!log) await term.tmux('pipe-pane', '-o', `cat >> ${file}`);
  const written = () => (existsSync(file) ? statSync(file).size : 0);
  const before = written();
  await term.tmux('resize-window', '-x', String(width), '-y', String(height));
  let previous = '';
  let sameSince = Date.now();
  await term.waitFor(screen => {
    if (screen !== previous) {
      previous = screen;
      sameSince = Date.now();
    }
    const quiet = Date.now() - sameSince;
    return screen.includes(IDLE) && quiet > (written() > before ? 400 : 1500);
  });
  if (!log) await term.tmux('pipe-pane');
  expect(await term.query('#{window_width}')).toBe(String(width));
}

/** The scrollback once it passes `check` and has stopped changing. */
async function settledHistory(term: Terminal, check: (history: string) => boolean, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let previous = '';
  for (;;) {
    const history = await term.history();
    if (history === previous && check(history)) return history;
    if (Date.now() > deadline) throw new Error(`the scrollback did not settle; it ends with:\n${history.slice(-2000)}`);
    previous = history;
    await new Promise(resolve => setTimeout(resolve, 300));
  }
}

describe('a resize in a real terminal', () => {
  test('three width changes after a 1,000-line answer: every line once, shell history kept, bytes bounded by the screen', async () => {
    const {term} = await start({
      script: [sse.text(answer)],
      args: [PROMPT],
      width: 120,
      height: 40,
      historyLimit: 50_000,
      shell: `echo ${SHELL_MARK}; "$@"`,
    });
    await term.waitFor(screen => screen.includes('answer line 1000') && screen.includes(IDLE), {timeoutMs: 20_000});

    const log = join(scratch, 'pane.out');
    await term.tmux('pipe-pane', '-o', `cat >> ${log}`);
    await resize(term, 80, 40, log);
    await resize(term, 100, 40, log);
    await resize(term, 120, 40, log);
    await term.tmux('pipe-pane');
    const written = (await stat(log)).size;
    console.log(`bytes written to the terminal for three resizes: ${written}`);

    const history = await term.history();
    expect(count(history, SHELL_MARK)).toBe(1);
    expect(count(history, `› ${PROMPT}`)).toBe(1);
    for (const line of ['answer line 0001 ', 'answer line 0500 ', 'answer line 1000 ']) expect(count(history, line)).toBe(1);
    // The live region (placeholder and status bar) once: no torn copy of it left behind.
    expect(count(history, IDLE)).toBe(1);
    expect(count(history, 'nib-test-model')).toBe(1);
    // About two screens per resize at most (40 rows of 120 columns is ~5 KB of text).
    expect(written).toBeLessThan(60_000);
    expect(await readFile(log, 'utf8')).not.toContain('answer line');

    // The prompt takes keys.
    await term.type('x');
    await term.waitForText('› x');
  });

  test('height changes and a shrink below the live region leave one live region', async () => {
    const {term} = await start({script: [sse.text('short answer here')], args: [PROMPT], width: 100, height: 30, historyLimit: 10_000});
    await term.waitFor(screen => screen.includes('short answer here') && screen.includes(IDLE));
    for (const [width, height] of [[60, 12], [100, 20], [45, 30], [100, 30]] as const) await resize(term, width, height);
    const history = await term.history();
    expect(count(history, `› ${PROMPT}`)).toBe(1);
    expect(count(history, 'short answer here')).toBe(1);
    expect(count(history, IDLE)).toBe(1);
    expect(count(history, 'nib-test-model')).toBe(1);
  });

  test('resizes while the answer streams: each line of it still once, the live region once', async () => {
    const streamed = answer.split('\n\n').slice(0, 300).join('\n\n');
    // ~3 s of streaming, so the resizes land mid-answer.
    const {term} = await start({script: [sse.slow(sse.text(streamed, {chunkSize: 40}), 10)], args: [PROMPT], width: 120, height: 40, historyLimit: 50_000});
    await term.waitForText('answer line 0020');
    for (const width of [80, 100, 120]) {
      await term.tmux('resize-window', '-x', String(width), '-y', '40');
      await new Promise(resolve => setTimeout(resolve, 300));
    }
    expect(await term.capture()).not.toContain('answer line 0300');
    await term.waitFor(screen => screen.includes('answer line 0300') && screen.includes(IDLE), {timeoutMs: 20_000});
    const history = await term.history();
    expect(count(history, `› ${PROMPT}`)).toBe(1);
    for (let line = 1; line <= 300; line++) expect(count(history, `answer line ${String(line).padStart(4, '0')} `), `line ${line}`).toBe(1);
    expect(count(history, IDLE)).toBe(1);
    expect(count(history, 'nib-test-model')).toBe(1);
  });

  test('/redraw clears the scrollback and prints the transcript again, once, at the new width', async () => {
    const {term} = await start({script: [sse.text(answer)], args: [PROMPT], width: 120, height: 40, historyLimit: 50_000, shell: `echo ${SHELL_MARK}; "$@"`});
    await term.waitFor(screen => screen.includes('answer line 1000') && screen.includes(IDLE), {timeoutMs: 20_000});
    await resize(term, 80, 40);
    await term.type('/redraw');
    await term.waitForText('/redraw');
    await term.send('Enter');
    // The prompt empties at Enter, before the command runs: the screen alone cannot tell a
    // finished redraw from one not yet begun, so wait on the scrollback (cleared, then reprinted).
    const history = await settledHistory(term, text => count(text, SHELL_MARK) === 0 && text.includes('answer line 1000') && text.includes(IDLE));
    expect(count(history, `› ${PROMPT}`)).toBe(1);
    for (const line of ['answer line 0001 ', 'answer line 0500 ', 'answer line 1000 ']) expect(count(history, line)).toBe(1);
    expect(count(history, IDLE)).toBe(1);
    // What the command says it does: the scrollback, the shell's lines in it too, is gone.
    expect(count(history, SHELL_MARK)).toBe(0);
    // Printed at 80 columns: no row of the reprinted transcript is wider.
    expect(Math.max(...history.split('\n').map(line => line.trimEnd().length))).toBeLessThanOrEqual(80);
  });
});
