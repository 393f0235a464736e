import {StringDecoder} from 'node:string_decoder';

/**
 * The prompt line, drawn with plain escape codes while React, Ink and the session load (~150 ms),
 * so the first key a person types shows at once instead of after the first Ink frame. Printable
 * characters and Backspace are handled here; the first other key (Escape, Ctrl+C, an arrow, a
 * paste, Enter after text) ends the early phase and is left, with everything after it, for Ink.
 */

/** What was typed before the app took over: a draft, or a prompt already sent with Enter. */
export type TypedAhead = {readonly text: string; readonly sent: boolean};

export type EarlyPrompt = {
  /** Erases the line and stops reading; returns the draft. Unread keys stay queued for Ink. */
  handOver(): Promise<TypedAhead>;
  /**
   * Erases the line; what was typed is dropped (a question comes first and must not get it).
   * Does nothing once the line was handed over or discarded.
   */
  discard(): Promise<void>;
};

export const IDLE_PLACEHOLDER = 'ask nib to do something, or / for commands';

type Terminal = {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /** False with NO_COLOR: the cursor keeps its inverse video, the text loses its colors. */
  hasColor: boolean;
};

// Begin and end a synchronized update: the erased line and Ink's first frame show together.
const BSU = '\u001B[?2026h';
const ESU = '\u001B[?2026l';
const PASTE_ON = '\u001B[?2004h';
const PASTE_OFF = '\u001B[?2004l';

export function drawEarlyPrompt({stdin, stdout, hasColor}: Terminal): EarlyPrompt {
  const decoder = new StringDecoder('utf8');
  let draft = '';
  let sent = false;
  let rest = '';
  let reading = true;
  const paint = (code: string, text: string) => (hasColor ? `\u001B[${code}m${text}\u001B[39m` : text);
  const draw = () => {
    // Never wider than the terminal: a wrapped line would leave a row behind when it is erased.
    const room = Math.max(1, (stdout.columns || 80) - 3);
    const placeholder = IDLE_PLACEHOLDER.slice(0, room);
    const body = draft === '' ? `\u001B[7m${placeholder[0]}\u001B[27m${paint('90', placeholder.slice(1))}` : `${tail(draft, room - 1)}\u001B[7m \u001B[27m`;
    stdout.write(`\r\u001B[2K${paint('36', '›')} ${body}`);
  };
  const stop = () => {
    if (!reading) return;
    reading = false;
    stdin.off('data', onData);
    stdin.pause();
  };
  const onData = (chunk: Buffer) => {
    const text = decoder.write(chunk);
    let index = 0;
    for (; index < text.length; index++) {
      const char = text[index]!;
      if (char === '\u007F' || char === '\b') draft = [...draft].slice(0, -1).join('');
      else if (char >= ' ') draft += char;
      else break;
    }
    draw();
    if (index === text.length) return;
    // Enter after some text sends it once the app is up; any other key is the app's to read. So
    // is an Enter with more text behind it in the same read: a paste of several lines.
    sent = text[index] === '\r' && index === text.length - 1 && draft.trim() !== '';
    rest = text.slice(sent ? index + 1 : index);
    stop();
  };
  // The cursor is hidden while Ink draws; the inverse-video cell stands in for it, as in the app.
  // If nib ends before the app takes over, the terminal gets its cursor back.
  const restore = () => stdout.write(`${PASTE_OFF}\u001B[?25h`);
  // Bracketed paste on (Ink turns it on too): a pasted text then comes marked, and goes to the
  // app whole instead of being taken for typed lines and Enters.
  stdout.write(`${PASTE_ON}\u001B[?25l`);
  draw();
  stdin.on('data', onData);
  process.once('exit', restore);
  let erased = false;
  const finish = async () => {
    if (erased) return false;
    erased = true;
    process.off('exit', restore);
    stop();
    // A TTY stream paused in the same tick as Ink starts to read it is left reading nothing, and
    // the process would end with nothing to wait for; a tick in between avoids that.
    await new Promise(resolve => setImmediate(resolve));
    return true;
  };
  return {
    async handOver() {
      if (!(await finish())) return {text: draft, sent};
      stdout.write(`${BSU}\r\u001B[2K`);
      // Ink's first frame follows in the same tick and ends the update; this ends it if none comes.
      setImmediate(() => stdout.write(ESU));
      if (rest) stdin.unshift(Buffer.from(rest, 'utf8'));
      return {text: draft, sent};
    },
    async discard() {
      if (!(await finish())) return;
      // Keys that came in after this stopped reading are dropped too; the question after this
      // also ignores keys typed before it showed.
      while (stdin.read() !== null);
      stdout.write(`\r\u001B[2K${PASTE_OFF}\u001B[?25h`);
    },
  };
}

/**
 * The end of `text` that fits in `columns`, so a long draft never wraps the line. Characters from
 * U+1100 on count as two columns (East Asian wide, emoji): at worst the line shows less. Not
 * string-width, which the app uses: loading it here (its Intl.Segmenter) put the prompt line on
 * screen ~30 ms later (bench/tui.mjs part 1: 83 ms against 53 ms).
 */
function tail(text: string, columns: number): string {
  const chars = [...text];
  let used = 0;
  let start = chars.length;
  while (start > 0) {
    const next = (chars[start - 1]!.codePointAt(0) ?? 0) >= 0x1100 ? 2 : 1;
    if (used + next > columns) break;
    used += next;
    start--;
  }
  return chars.slice(start).join('');
}
