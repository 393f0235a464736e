/**
 * Ink's frame writer ("log-update"), wrapped so that what moves into <Static> is not drawn twice.
 *
 * When a finished block moves from the live region into <Static>, Ink erases the whole live
 * region, writes the block, and draws the live region again under it. But the block was on
 * screen already, in the same rows: the open block's rows are its rows (LiveTurn draws them with
 * the margin the transcript gives them). So the erase is held back until the block's text and
 * the next frame are both known; then the block and the frame are drawn as one frame over the
 * old one, and Ink's own line diff skips every row that is already right. The rows of the block
 * are then forgotten by the frame writer: they are scrollback, as they would have been.
 *
 * The screen ends up exactly as with Ink's erase-and-redraw (the frame-log test checks both on a
 * terminal emulator); only the bytes differ. Whatever does not fit the pattern (a cursor shown,
 * a resize, a write that moves the cursor, a frame that fills the screen) goes out as Ink wrote it.
 *
 * It also writes a run of "next line" moves as one move: Ink steps over each unchanged row
 * with its own escape sequence, which cost ~0.3 terminal bytes per answer byte while streaming.
 *
 * The build puts this in place of Ink's log-update (scripts/build-plugins.mjs); Ink has no option for it.
 */

/** The frame writer Ink creates for a stream, as Ink's own log-update module defines it. */
export type LogUpdate = {
  (text: string): boolean;
  clear: () => void;
  done: () => void;
  reset: () => void;
  sync: (text: string) => void;
  setCursorPosition: (position: {x: number; y: number} | undefined) => void;
  isCursorDirty: () => boolean;
  willRender: (text: string) => boolean;
  getCursorPosition: () => {x: number; y: number} | undefined;
};

export type CreateLogUpdate = (stream: never, options?: {showCursor?: boolean; incremental?: boolean}) => LogUpdate;

/** What the frame writer holds back: `take` keeps a write back (true) or lets it through; `flush` writes what was kept. */
export type HeldWrites = {take: (data: string) => boolean; flush: () => void};

/** A stream that lets the frame writer see, and keep, the write that follows an erase. */
export type HoldingStream = {
  write: (data: string) => boolean;
  readonly columns?: number;
  /** How many writes so far had a line wider than the screen (the terminal cut it). */
  readonly cuts?: number;
  /** False while a write must go out at once (a resize is being handled). */
  readonly canHold?: boolean;
  /** `take` sees each write first; `flush` is called before any other output. */
  holdWrites?: (held: HeldWrites | undefined) => void;
};

type Held = {text: string | null};

export function wrapLogUpdate(create: CreateLogUpdate, stream: HoldingStream, options?: {showCursor?: boolean; incremental?: boolean}): LogUpdate {
  const inner = create(compressing(stream) as never, options);
  // Only Ink's incremental writer diffs rows, and only a stream that can keep a write back helps.
  const mayHold = typeof stream.holdWrites === 'function' && options?.incremental === true;
  /** What the inner writer last drew (its frame on screen), '' when nothing. */
  let drawn = '';
  let held: Held | null = null;
  /** The cursor position Ink asked for last (Ink sets it, often to none, before every frame). */
  let cursor: {x: number; y: number} | undefined;
  /**
   * The width and cut count when the frame on screen was last drawn whole. Ink's diff skips rows
   * it thinks unchanged, so after a width change or a cut line a row on screen may differ from
   * what the inner writer remembers; until the next whole frame, an erase is not held.
   */
  let whole: {columns: number | undefined; cuts: number} | null = null;
  const trusted = () => whole !== null && whole.columns === stream.columns && whole.cuts === (stream.cuts ?? 0);
  const draw = (text: string) => {
    const cuts = stream.cuts ?? 0;
    const wholeFrame = drawn === '';
    const wrote = inner(text);
    if (wholeFrame) whole = {columns: stream.columns, cuts};
    drawn = text;
    return wrote;
  };

  const release = () => {
    stream.holdWrites?.(undefined);
  };
  /** Writes what was held back, as Ink would have written it. */
  const flush = () => {
    if (!held) return;
    const {text} = held;
    held = null;
    release();
    inner.clear();
    drawn = '';
    if (text !== null) stream.write(text);
  };
  const take = (data: string): boolean => {
    if (!held) return false;
    if (held.text === null && isPlainLines(data)) {
      held.text = data;
      return true;
    }
    flush();
    return false;
  };

  const render = ((text: string) => {
    if (held?.text && text.endsWith('\n') && drawn !== '') {
      const block = held.text;
      held = null;
      release();
      // One frame of block + live region over the old live region; rows already right are skipped.
      const wrote = inner(block + text);
      // The block is scrollback now: the next frame is diffed against the live region alone.
      inner.sync(text);
      drawn = text;
      return wrote;
    }
    flush();
    return draw(text);
  }) as LogUpdate;

  render.clear = () => {
    flush();
    if (mayHold && drawn !== '' && trusted() && stream.canHold !== false && cursor === undefined && inner.getCursorPosition() === undefined) {
      held = {text: null};
      stream.holdWrites!({take, flush});
      return;
    }
    inner.clear();
    drawn = '';
  };
  render.done = () => {
    flush();
    inner.done();
    drawn = '';
  };
  render.reset = () => {
    flush();
    inner.reset();
    drawn = '';
  };
  render.sync = text => {
    flush();
    inner.sync(text);
    drawn = text;
    // Written by Ink itself, not by the inner writer: not known to be whole.
    whole = null;
  };
  render.setCursorPosition = position => {
    cursor = position;
    inner.setCursorPosition(position);
  };
  render.isCursorDirty = () => inner.isCursorDirty();
  render.willRender = text => (held ? true : inner.willRender(text));
  render.getCursorPosition = () => inner.getCursorPosition();
  return render;
}

/**
 * Text that only prints lines: ends with a newline, and has no control characters but newlines
 * and no escape sequences but colors (SGR). Only such a write can be drawn as rows of a frame.
 */
function isPlainLines(data: string): boolean {
  // eslint-disable-next-line no-control-regex
  return data.endsWith('\n') && !/[\u0000-\u0009\u000B-\u001A\u001C-\u001F\u007F]|\u001B(?!\[[\d;:]*m)/u.test(data);
}

/** The stream as the inner writer sees it: a run of "cursor next line" moves goes out as one. */
function compressing<T extends HoldingStream>(stream: T): T {
  return withWrite(stream, (data: string) => stream.write(shortenMoves(data)));
}

/** `stream` with its `write` replaced; everything else (columns, isTTY, events) is the stream's own. */
export function withWrite<T extends {write: unknown}>(stream: T, write: T['write']): T {
  return new Proxy(stream, {get: (target, property) => (property === 'write' ? write : Reflect.get(target, property, target))});
}

// eslint-disable-next-line no-control-regex
const nextLineRun = /(?:\u001B\[E){2,}/g;
// eslint-disable-next-line no-control-regex
const upThenDown = /\u001B\[(\d+)A\u001B\[(\d*)E/g;

/**
 * `ESC[E` × n as `ESC[nE`, then "up n, next line m" as one move up to the line's start (both end
 * in column 1; neither scrolls, and the rows passed over are on screen).
 */
export function shortenMoves(data: string): string {
  if (!data.includes('\u001B[E')) return data;
  return data
    .replace(nextLineRun, run => `\u001B[${run.length / 3}E`)
    .replace(upThenDown, (whole, up: string, down: string) => {
      const rows = Number(up) - (down === '' ? 1 : Number(down));
      if (rows > 0) return `\u001B[${rows}F`;
      return rows === 0 ? '\r' : whole;
    });
}
