import {EventEmitter} from 'node:events';
import {withWrite, type HeldWrites} from './frame-log.js';
import {TerminalRows} from './terminal-rows.js';

/**
 * The stdout Ink renders to: the real one, plus the one thing Ink gets wrong on a resize.
 *
 * When the terminal gets narrower, Ink erases its live region (the prompt, status, streaming
 * text) by counting the lines it drew, then draws it again. But tmux, VTE, iTerm2, kitty and
 * Windows Terminal have already re-wrapped those lines: a 120-column status line is two rows at
 * 80 columns, so the count falls short and the top of the old region stays behind, torn, and
 * piles up with every resize. This stream sees that erase go by (Ink writes it first, inside its
 * resize handler) and replaces it with one that counts rows the way the terminal re-wrapped them,
 * from the widths of the rows Ink wrote. Nothing above the live region is touched: the
 * transcript and the person's shell history stay as they were printed, once each, and a resize
 * costs one erase and one frame, whatever the length of the session.
 *
 * Ink draws one frame at the new width before React has re-rendered with it, and components that
 * size themselves from the old width make that frame's lines too wide for the screen; the terminal
 * would wrap them and Ink's next frame, which counts each line as one row, would land one row off.
 * So a write with a line wider than the screen goes out with autowrap off: the line is cut at the
 * edge for that one frame, and stays one row, as Ink assumes. Other writes go out as they are.
 *
 * Why a stream and not a patch of Ink: Ink has no render option for this, and its instance (and
 * its resize handler) is not reachable through its public API; `render({stdout})` is. xterm does
 * not re-wrap (it cuts lines), so there Ink's own count is right and the erase passes unchanged.
 */
export class ResizeSafeStdout extends EventEmitter {
  private readonly drawn = new TerminalRows();
  private columnsDrawn: number;
  /** Set while Ink handles a narrowing resize, until its erase has gone by. */
  private narrowing: {to: number} | undefined;
  private resizing = false;
  /** What the frame writer holds back, and its look at each write meanwhile (frame-log.ts). */
  private held: HeldWrites | undefined;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly reflows: boolean,
  ) {
    super();
    this.columnsDrawn = out.columns;
    out.on('resize', this.onResize);
  }

  get columns(): number {
    return this.out.columns;
  }

  get rows(): number {
    return this.out.rows;
  }

  get isTTY(): boolean {
    return this.out.isTTY === true;
  }

  get writable(): boolean {
    return this.out.writable;
  }

  get destroyed(): boolean {
    return this.out.destroyed;
  }

  get writableEnded(): boolean {
    return this.out.writableEnded;
  }

  /** When the app last wrote to the screen (performance.now()): the session's idle time reads it. */
  lastWriteAt = 0;

  /** Writes so far that had a line cut at the screen's edge (the frame log reads it). */
  cuts = 0;

  /** An erase is written at once while a resize is handled: the narrowing fix below must see it. */
  get canHold(): boolean {
    return !this.resizing;
  }

  holdWrites(held: HeldWrites | undefined): void {
    this.held = held;
  }

  /**
   * `stderr` as Ink must get it: Ink erases its frame, writes console.error output to stderr and
   * draws the frame again, so whatever the frame writer holds back goes out before stderr's text.
   */
  errorStream(stderr: NodeJS.WriteStream): NodeJS.WriteStream {
    return withWrite(stderr, (...args: unknown[]) => {
      this.held?.flush();
      return (stderr.write as (...args: unknown[]) => boolean)(...args);
    });
  }

  write(chunk: string | Uint8Array, ...rest: unknown[]): boolean {
    this.lastWriteAt = performance.now();
    let data = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    // The frame writer may keep this write back; if not, what it kept goes out first.
    if (this.held) {
      if (rest.length === 0 && this.held.take(data)) return true;
      this.held?.flush();
    }
    if (this.narrowing && isCursorOnly(data)) {
      data = this.reflowedErase(data, this.narrowing.to);
      this.narrowing = undefined;
    }
    const pastEdge = this.drawn.write(data, this.out.columns);
    if (pastEdge) this.cuts++;
    const framed = pastEdge ? autowrapOff + data + autowrapOn : data;
    return (this.out.write as (data: string, ...rest: unknown[]) => boolean)(framed, ...rest);
  }

  /** Stops following the terminal's resizes (the app has exited). */
  detach(): void {
    this.out.off('resize', this.onResize);
  }

  private readonly onResize = () => {
    const to = this.out.columns;
    if (this.reflows && to < this.columnsDrawn) this.narrowing = {to};
    this.resizing = true;
    try {
      this.emit('resize');
    } finally {
      this.resizing = false;
      this.narrowing = undefined;
      this.columnsDrawn = to;
    }
  };

  /**
   * Ink's erase of `data`, counted in the rows the terminal re-wrapped its lines into. It clears
   * row by row on the way up, as Ink's own erase does, and never erases "below": tmux (its
   * scroll-on-clear option, on by default) takes an erase below from the screen's top-left corner
   * for a clear screen and scrolls the screen into the scrollback instead. Whenever the live region
   * started on the screen's first row (a short transcript, a low screen, status lines that wrap
   * at the new width), that kept the old region in the history and drew the new one under it.
   */
  private reflowedErase(data: string, columns: number): string {
    const top = this.drawn.topReachedBy(data);
    const up = this.drawn.rowsAbove(top, columns);
    this.drawn.erasedFrom(top);
    return `${eraseLine}${`\u001B[1A${eraseLine}`.repeat(up)}\u001B[G`;
  }
}

const eraseLine = '\u001B[2K';
const autowrapOff = '\u001B[?7l';
const autowrapOn = '\u001B[?7h';

/** True for writes that only move the cursor and erase (Ink clearing its frame), no text. */
function isCursorOnly(data: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /^(?:\u001B\[\d*[A-GJK])+$/u.test(data) && /[JK]/.test(data);
}

/**
 * Whether the terminal re-wraps lines on a width change. Most do; xterm (which says so in
 * XTERM_VERSION), st and the Linux console cut them instead. tmux or screen in between re-wrap
 * themselves, whatever the terminal outside does.
 */
export function terminalReflows(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env['TMUX'] || env['STY']) return true;
  const term = env['TERM'] ?? '';
  return !(env['XTERM_VERSION'] || term === 'linux' || term === 'st' || term.startsWith('st-'));
}
