import {EventEmitter} from 'node:events';
import {Terminal} from '@xterm/headless';
import {describe, expect, it} from 'vitest';
import inkLogUpdate from '../../node_modules/ink/build/log-update.js';
import {shortenMoves, wrapLogUpdate, type CreateLogUpdate, type LogUpdate} from '../../source/hooks/frame-log.js';
import {ResizeSafeStdout} from '../../source/hooks/resize-safe-stdout.js';

const COLUMNS = 60;
const ROWS = 24;
const bsu = '\u001B[?2026h';
const esu = '\u001B[?2026l';

/** A tty whose output goes to a real terminal emulator (the tty's ONLCR: \n is CR LF). */
class EmulatedTty extends EventEmitter {
  readonly terminal = new Terminal({cols: COLUMNS, rows: ROWS, scrollback: 5000, allowProposedApi: true, convertEol: true});
  bytes = 0;
  isTTY = true;
  writable = true;
  destroyed = false;
  writableEnded = false;
  columns = COLUMNS;
  rows = ROWS;
  write(data: string) {
    this.bytes += Buffer.byteLength(data);
    this.terminal.write(data);
    return true;
  }
  /** Every row, scrollback included, and where the cursor is. */
  async screen(): Promise<string[]> {
    await new Promise<void>(resolve => this.terminal.write('', resolve));
    const buffer = this.terminal.buffer.active;
    const rows: string[] = [];
    for (let index = 0; index < buffer.length; index++) rows.push(buffer.getLine(index)!.translateToString(true));
    while (rows.length > 0 && rows.at(-1) === '') rows.pop();
    return [...rows, `cursor ${buffer.cursorX},${buffer.baseY + buffer.cursorY}`];
  }
}

/** Ink's side of the calls, as ink.js makes them for each kind of frame. */
function inkDriver(wrapped: boolean) {
  const tty = new EmulatedTty();
  const stdout = new ResizeSafeStdout(tty as unknown as NodeJS.WriteStream, true);
  const create = inkLogUpdate.create as unknown as CreateLogUpdate;
  const log: LogUpdate = wrapped
    ? wrapLogUpdate(create, stdout, {incremental: true})
    : create(stdout as never, {incremental: true});
  const stderr = stdout.errorStream({write: (data: string) => tty.write(data)} as unknown as NodeJS.WriteStream);
  return {
    tty,
    stdout,
    /** console.error while Ink is mounted: erase, the text on stderr (the same terminal), the frame again. */
    toStderr(data: string, output: string) {
      stdout.write(bsu);
      log.clear();
      stderr.write(data);
      log.setCursorPosition(undefined);
      log(output);
      stdout.write(esu);
    },
    frame(output: string) {
      stdout.write(bsu);
      log.setCursorPosition(undefined);
      log(output);
      stdout.write(esu);
    },
    withStatic(staticOutput: string, output: string) {
      stdout.write(bsu);
      log.setCursorPosition(undefined);
      log.clear();
      stdout.write(staticOutput);
      log(output);
      stdout.write(esu);
    },
    /** The path for a frame that must clear the terminal (it grew past the screen). */
    clearing(staticOutput: string, output: string) {
      stdout.write(bsu);
      log.clear();
      stdout.write(staticOutput + output);
      log.sync(output);
      stdout.write(esu);
    },
    /** console.log while Ink is mounted: erase, the text, the last frame again. */
    external(data: string, output: string) {
      log.clear();
      stdout.write(data);
      log(output);
    },
    /** The screen's width changes once what was written has reached it. */
    async resized(columns: number) {
      await tty.screen();
      tty.columns = columns;
      tty.terminal.resize(columns, ROWS);
    },
    /** The screen gets wider: Ink erases nothing, and draws the same frame (so nothing changes). */
    async widened(columns: number, output: string) {
      await this.resized(columns);
      stdout.once('resize', () => this.frame(output));
      tty.emit('resize');
    },
    /** Ink's resize handler on a narrower screen: erase, then a frame. */
    narrowed(output: string) {
      stdout.once('resize', () => {
        log.clear();
        log(output);
      });
      tty.columns = COLUMNS;
      tty.emit('resize');
    },
    done() {
      log.done();
    },
  };
}

/** A streamed answer, paragraph by paragraph, as nib's live region and transcript draw it. */
function* answerFrames() {
  const words = 'the loop reads files and streams tokens to the screen while a person watches'.split(' ');
  const hints = ['› working… type to queue a message', 'model · ask · ctx 12%', 'esc interrupt'];
  for (let paragraph = 0; paragraph < 6; paragraph++) {
    const text: string[] = [];
    for (let word = 0; word < 40 + paragraph * 7; word++) {
      const next = words[(word + paragraph) % words.length]!;
      const last = text.at(-1);
      if (last === undefined || last.length + 1 + next.length > COLUMNS) text.push(next);
      else text[text.length - 1] = `${last} ${next}`;
      const reserve = Array.from({length: Math.ceil(text.length / 4) * 4 - text.length}, () => '');
      yield {kind: 'frame' as const, output: `${['', ...text, ...reserve, ...hints].join('\n')}\n`};
    }
    yield {kind: 'static' as const, staticOutput: `${['', ...text].join('\n')}\n`, output: `${hints.join('\n')}\n`};
  }
}

async function replay(wrapped: boolean, script: (ink: ReturnType<typeof inkDriver>) => void | Promise<void>) {
  const ink = inkDriver(wrapped);
  await script(ink);
  return {screen: await ink.tty.screen(), bytes: ink.tty.bytes};
}

describe('frame log', () => {
  it('leaves a streamed answer on screen and in scrollback as Ink does, in far fewer bytes', async () => {
    const script = (ink: ReturnType<typeof inkDriver>) => {
      ink.frame('› write a long answer\nmodel · ask\nesc interrupt\n');
      for (const step of answerFrames()) {
        if (step.kind === 'frame') ink.frame(step.output);
        else ink.withStatic(step.staticOutput, step.output);
      }
      ink.done();
    };
    const ink = await replay(false, script);
    const nib = await replay(true, script);
    expect(nib.screen).toEqual(ink.screen);
    // The answer's text reached the screen once, not twice.
    expect(nib.bytes).toBeLessThan(ink.bytes * 0.75);
  });

  it('draws static text that was not on screen (a finished tool call) like Ink', async () => {
    const script = (ink: ReturnType<typeof inkDriver>) => {
      ink.frame('● bash ls  running 1s\n  a.txt\n\n› working\nstatus\n');
      ink.withStatic('\u001B[32m✓\u001B[39m bash ls  0.2s\n', '› working\nstatus\n');
      ink.frame('› working…\nstatus\n');
      ink.withStatic('\na very long line that is wider than the screen, which the terminal would wrap if it could do so\n', '\nstreaming\n› working\nstatus\n');
      ink.frame('\nstreaming on\n› working\nstatus\n');
    };
    expect((await replay(true, script)).screen).toEqual((await replay(false, script)).screen);
  });

  it('passes erases through unchanged around console writes, resizes and clearing frames', async () => {
    const script = (ink: ReturnType<typeof inkDriver>) => {
      ink.frame('\nan open block\n\n› prompt\nstatus\n');
      ink.external('a console line\n', '\nan open block\n\n› prompt\nstatus\n');
      ink.external('\u001B[2Jnot plain\n', '\nan open block\n\n› prompt\nstatus\n');
      ink.toStderr('a warning on stderr\n', '\nan open block\n\n› prompt\nstatus\n');
      ink.narrowed('\nan open block, narrower\n› prompt\nstatus\n');
      ink.clearing('\nan open block\n', '› prompt\nstatus\n');
      ink.withStatic('\nfirst\n', '\nsecond\n› prompt\nstatus\n');
      ink.frame('\nsecond and more\n› prompt\nstatus\n');
      ink.withStatic('\nsecond and more\n', '› prompt\nstatus');
      ink.frame('› prompt\nstatus\n');
      ink.done();
    };
    expect((await replay(true, script)).screen).toEqual((await replay(false, script)).screen);
  });

  it('falls back to Ink erasing when a row on screen may not be what was drawn (cut, then wider)', async () => {
    const line = 'an answer line of seventy-one columns, wider than the screen at first.';
    const script = async (ink: ReturnType<typeof inkDriver>) => {
      await ink.resized(40);
      // Past the edge: written with autowrap off, so the terminal shows its first 40 columns.
      ink.frame(`\n${line}\n› prompt\nstatus\n`);
      await ink.widened(COLUMNS + 20, `\n${line}\n› prompt\nstatus\n`);
      ink.withStatic(`\n${line}\n`, '› prompt\nstatus\n');
      ink.frame('› prompt\nstatus…\n');
    };
    const nib = await replay(true, script);
    expect(nib.screen).toEqual((await replay(false, script)).screen);
    expect(nib.screen).toContain(line);
  });
});

describe('shortenMoves', () => {
  it('writes runs of next-line moves as one, and up-then-down as one move up', () => {
    expect(shortenMoves('\u001B[E\u001B[E\u001B[Ea\n\u001B[E')).toBe('\u001B[3Ea\n\u001B[E');
    expect(shortenMoves('\u001B[11A\u001B[E\u001B[E\u001B[E\u001B[E\u001B[37G')).toBe('\u001B[7F\u001B[37G');
    expect(shortenMoves('\u001B[2A\u001B[E\u001B[Ex')).toBe('\rx');
    expect(shortenMoves('\u001B[1A\u001B[E\u001B[E\u001B[Ex')).toBe('\u001B[1A\u001B[3Ex');
    expect(shortenMoves('plain')).toBe('plain');
  });
});
