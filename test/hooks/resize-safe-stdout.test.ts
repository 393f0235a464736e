import {EventEmitter} from 'node:events';
import {describe, expect, it} from 'vitest';
import {ResizeSafeStdout, terminalReflows} from '../../source/hooks/resize-safe-stdout.js';
import {TerminalRows} from '../../source/hooks/terminal-rows.js';

/** A terminal's stdout as Node presents it: size, isTTY, 'resize', and what was written. */
class FakeTty extends EventEmitter {
  written = '';
  isTTY = true;
  writable = true;
  destroyed = false;
  writableEnded = false;
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write(data: string) {
    this.written += data;
    return true;
  }
  resize(columns: number) {
    this.columns = columns;
    this.emit('resize');
  }
}

// Ink's erase of an n-line frame (ansi-escapes eraseLines), cursor on the row below it.
const eraseLines = (count: number) => `${'\u001B[2K\u001B[1A'.repeat(count - 1)}\u001B[2K\u001B[G`;
const strip = (text: string) => text.replaceAll('\u001B[?7l', '').replaceAll('\u001B[?7h', '');

/** A stream over a fake tty, with a 3-line live region drawn under some transcript. */
function setup(reflows: boolean) {
  const tty = new FakeTty(120, 40);
  const stdout = new ResizeSafeStdout(tty as unknown as NodeJS.WriteStream, reflows);
  stdout.write(`${'t'.repeat(120)}\ntranscript\n`);
  stdout.write(`${'p'.repeat(100)}\n${'s'.repeat(50)}\n${'k'.repeat(118)}\n`);
  // Ink's resize handler: erase the frame, draw it again.
  stdout.on('resize', () => {
    stdout.write(eraseLines(4));
    stdout.write('frame\n');
  });
  tty.written = '';
  return {tty, stdout};
}

describe('TerminalRows', () => {
  it('counts the rows a region takes once re-wrapped at a narrower width', () => {
    const rows = new TerminalRows();
    rows.write(`${'a'.repeat(100)}\n${'b'.repeat(40)}\n\n`);
    expect(rows.rowsAbove(0, 60)).toBe(2 + 1 + 1);
    expect(rows.rowsAbove(0, 120)).toBe(3);
  });

  it('follows cursor moves and erases as Ink writes them', () => {
    const rows = new TerminalRows();
    rows.write('\u001B[31mred\u001B[39m text\nline two\n');
    expect(rows.cursorRow).toBe(2);
    expect(rows.topReachedBy(eraseLines(3))).toBe(0);
    rows.write('\u001B[2A\u001B[G\u001B[K' + 'x'.repeat(10));
    expect(rows.rowsAbove(0, 5)).toBe(0 + 2);
  });

  it('cuts a row at the screen width (autowrap is off while Ink writes)', () => {
    const rows = new TerminalRows();
    rows.write(`${'w'.repeat(100)}\n`, 60);
    expect(rows.rowsAbove(0, 30)).toBe(2);
  });

  it('counts wide characters by their cells', () => {
    const rows = new TerminalRows();
    rows.write('漢字漢字漢\n');
    expect(rows.rowsAbove(0, 4)).toBe(3);
  });
});

describe('ResizeSafeStdout', () => {
  it("replaces Ink's erase on a narrowing resize with one counted in re-wrapped rows", () => {
    const {tty} = setup(true);
    tty.resize(80);
    // 100 → 2 rows, 50 → 1, 118 → 2, at 80 columns: 5 rows above the cursor, and its own row.
    expect(strip(tty.written)).toBe(`${eraseLines(6)}frame\n`);
  });

  it('erases a status line wider than the new screen row by row, never with an erase below', () => {
    // The live region as a 100-column terminal shows it with a long working directory: the status
    // line (72 columns) and the hints (71) each re-wrap into two rows at 45 columns.
    const tty = new FakeTty(100, 20);
    const stdout = new ResizeSafeStdout(tty as unknown as NodeJS.WriteStream, true);
    const status = 'nib-test-model · ask · ↑10 ↓5 (0% ctx) · /tmp/nib-tmux-Z2DsZd/workspace';
    const hints = 'enter send · ctrl+j newline · / commands · shift+tab mode · ctrl+d exit';
    stdout.write(`\n› tell me\n\nshort answer here\n`);
    stdout.write(`› ask nib to do something, or / for commands\n${status}\n${hints}\n`);
    stdout.on('resize', () => {
      stdout.write(eraseLines(4));
      stdout.write('frame\n');
    });
    tty.written = '';
    tty.resize(45);
    // Here the region's top is the screen's first row. tmux (scroll-on-clear) turns an erase below
    // from there into a scroll of the whole screen into the scrollback: the old region would stay
    // in the history, above the new one. Erasing line by line (1 + 2 + 2 rows, and the cursor's)
    // leaves nothing behind wherever the region starts.
    expect(strip(tty.written)).toBe(`${eraseLines(6)}frame\n`);
    expect(tty.written).not.toMatch(/\u001B\[\d*J/u);
  });

  it("leaves Ink's erase alone in a terminal that cuts lines (xterm) and when widening", () => {
    const xterm = setup(false);
    xterm.tty.resize(80);
    expect(strip(xterm.tty.written)).toBe(`${eraseLines(4)}frame\n`);
    const wider = setup(true);
    wider.tty.resize(150);
    expect(strip(wider.tty.written)).toBe(`${eraseLines(4)}frame\n`);
  });

  it('turns autowrap off only around a write with a line wider than the screen', () => {
    const {tty, stdout} = setup(true);
    stdout.write('\u001B[?2026h');
    stdout.write(`${'x'.repeat(120)}\n`);
    expect(tty.written).toBe(`\u001B[?2026h${'x'.repeat(120)}\n`);
    tty.written = '';
    stdout.write(`${'y'.repeat(121)}\n`);
    expect(tty.written).toBe(`\u001B[?7l${'y'.repeat(121)}\n\u001B[?7h`);
  });

  it('reports the real size and stops following resizes once detached', () => {
    const {tty, stdout} = setup(true);
    expect([stdout.columns, stdout.rows, stdout.isTTY]).toEqual([120, 40, true]);
    stdout.detach();
    tty.resize(80);
    expect(tty.written).toBe('');
  });
});

describe('terminalReflows', () => {
  it('is false for xterm, st and the Linux console, unless tmux or screen is in between', () => {
    expect(terminalReflows({})).toBe(true);
    expect(terminalReflows({VTE_VERSION: '7600', TERM: 'xterm-256color'})).toBe(true);
    expect(terminalReflows({TERM: 'xterm-kitty'})).toBe(true);
    expect(terminalReflows({XTERM_VERSION: 'XTerm(390)', TERM: 'xterm'})).toBe(false);
    expect(terminalReflows({TERM: 'st-256color'})).toBe(false);
    expect(terminalReflows({TERM: 'linux'})).toBe(false);
    expect(terminalReflows({XTERM_VERSION: 'XTerm(390)', TMUX: '/tmp/tmux-0/default,1,0'})).toBe(true);
    expect(terminalReflows({TERM: 'screen-256color', STY: '123.pts-0'})).toBe(true);
  });
});
