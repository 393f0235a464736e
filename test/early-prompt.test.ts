import {PassThrough} from 'node:stream';
import {describe, expect, it} from 'vitest';
import {drawEarlyPrompt} from '../source/early-prompt.js';

// The prompt line drawn before the app loads: what it shows, and what it hands to the app.

function terminal(columns = 80) {
  const stdin = new PassThrough() as unknown as NodeJS.ReadStream;
  let written = '';
  const stdout = {columns, write: (text: string) => ((written += text), true)} as unknown as NodeJS.WriteStream;
  return {stdin, stdout, screen: () => written, line: () => written.slice(written.lastIndexOf('\r\u001B[2K') + 5)};
}

const type = async (stdin: NodeJS.ReadStream, text: string) => {
  (stdin as unknown as PassThrough).write(Buffer.from(text, 'utf8'));
  await new Promise(resolve => setImmediate(resolve));
};

/** What a reader that comes after the early prompt (Ink) gets from stdin. */
const unread = (stdin: NodeJS.ReadStream) => String((stdin as unknown as PassThrough).read() ?? '');

describe('the early prompt', () => {
  it('shows the idle placeholder, its first letter as the cursor, and hides the real cursor', () => {
    const {stdin, stdout, screen, line} = terminal();
    drawEarlyPrompt({stdin, stdout, hasColor: true});
    expect(screen()).toContain('\u001B[?25l');
    expect(line()).toBe('\u001B[36m›\u001B[39m \u001B[7ma\u001B[27m\u001B[90msk nib to do something, or / for commands\u001B[39m');
  });

  it('echoes typed text with the cursor after it, takes Backspace, and hands the draft over', async () => {
    const {stdin, stdout, line, screen} = terminal();
    const early = drawEarlyPrompt({stdin, stdout, hasColor: false});
    await type(stdin, 'fix the tesx');
    await type(stdin, '\u007Ft');
    expect(line()).toBe('› fix the test\u001B[7m \u001B[27m');
    expect(await early.handOver()).toEqual({text: 'fix the test', sent: false});
    // The line is erased for the app's first frame.
    expect(screen().endsWith('\r\u001B[2K')).toBe(true);
    expect(unread(stdin)).toBe('');
  });

  it('Enter after text sends it; keys after Enter stay for the app', async () => {
    const {stdin, stdout} = terminal();
    const early = drawEarlyPrompt({stdin, stdout, hasColor: false});
    await type(stdin, 'hello\r');
    await type(stdin, 'next');
    expect(await early.handOver()).toEqual({text: 'hello', sent: true});
    expect(unread(stdin)).toBe('next');
  });

  it('lines pasted in one read (a terminal without bracketed paste) are not sent line by line', async () => {
    const {stdin, stdout, screen} = terminal();
    const early = drawEarlyPrompt({stdin, stdout, hasColor: false});
    expect(screen()).toContain('\u001B[?2004h');
    await type(stdin, 'first line\rsecond line\r');
    expect(await early.handOver()).toEqual({text: 'first line', sent: false});
    // The app gets the rest as one read, which its prompt keeps as line breaks.
    expect(unread(stdin)).toBe('\rsecond line\r');
  });

  it('on a narrow terminal the placeholder is cut, so the line never wraps', () => {
    const {stdin, stdout, line} = terminal(12);
    drawEarlyPrompt({stdin, stdout, hasColor: false});
    expect(line()).toBe('› \u001B[7ma\u001B[27msk nib t');
  });

  it('stops at the first key it does not handle (Escape, Ctrl+C, an arrow) and leaves it for the app', async () => {
    const {stdin, stdout, line} = terminal();
    const early = drawEarlyPrompt({stdin, stdout, hasColor: false});
    await type(stdin, 'ab\u001B[Acd');
    await type(stdin, 'more');
    // The draft as far as the arrow; nothing after it is drawn here.
    expect(line()).toBe('› ab\u001B[7m \u001B[27m');
    expect(await early.handOver()).toEqual({text: 'ab', sent: false});
    expect(unread(stdin)).toBe('\u001B[Acdmore');
  });

  it('Enter on an empty prompt is the app\'s key, not a sent prompt', async () => {
    const {stdin, stdout} = terminal();
    const early = drawEarlyPrompt({stdin, stdout, hasColor: false});
    await type(stdin, '  \r');
    expect(await early.handOver()).toEqual({text: '  ', sent: false});
    expect(unread(stdin)).toBe('\r');
  });

  it('a character split across reads is not garbled', async () => {
    const {stdin, stdout} = terminal();
    const early = drawEarlyPrompt({stdin, stdout, hasColor: false});
    const bytes = Buffer.from('é', 'utf8');
    for (const byte of [bytes.subarray(0, 1), bytes.subarray(1)]) {
      (stdin as unknown as PassThrough).write(byte);
      await new Promise(resolve => setImmediate(resolve));
    }
    expect((await early.handOver()).text).toBe('é');
  });

  it('a long draft shows its end and never wraps the line', async () => {
    const {stdin, stdout, line} = terminal(20);
    const early = drawEarlyPrompt({stdin, stdout, hasColor: false});
    await type(stdin, 'abcdefghijklmnopqrstuvwxyz');
    expect(line()).toBe('› klmnopqrstuvwxyz\u001B[7m \u001B[27m');
    expect((await early.handOver()).text).toBe('abcdefghijklmnopqrstuvwxyz');
  });

  it('discard drops what was typed: a question that comes first must not get those keys', async () => {
    const {stdin, stdout, screen} = terminal();
    const early = drawEarlyPrompt({stdin, stdout, hasColor: false});
    await type(stdin, 'y\u0003');
    // A key that comes after the early prompt stopped reading, before it was discarded.
    (stdin as unknown as PassThrough).write('n');
    await early.discard();
    expect(unread(stdin)).toBe('');
    // Erased, cursor and paste mode back, with nothing left for a later tick to write.
    expect(screen().endsWith('\r\u001B[2K\u001B[?2004l\u001B[?25h')).toBe(true);
  });

  it('once handed over, a later discard (an error in the app) leaves the screen alone', async () => {
    const {stdin, stdout, screen} = terminal();
    const early = drawEarlyPrompt({stdin, stdout, hasColor: false});
    await early.handOver();
    const before = screen();
    await early.discard();
    await new Promise(resolve => setImmediate(resolve));
    // Only the end of the synchronized update that handOver began.
    expect(screen().slice(before.length)).toBe('\u001B[?2026l');
  });
});
