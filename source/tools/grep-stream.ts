import {createReadStream} from 'node:fs';
import type {FileHits} from './grep-collect.js';

/** A line longer than this is searched in its first this-many bytes only: memory stays bounded. */
export const STREAM_MAX_LINE_BYTES = 16 * 1024 * 1024;

export type StreamSearch = {
  regex: RegExp;
  /** The same pattern with `m`: one test tells whether a block of lines holds any match. */
  prefilter: RegExp;
  context: number;
  /** Matching lines kept (later ones are only counted): no result shows more of one file. */
  keepMatches: number;
  /** Characters kept of a line: the result cuts longer ones anyway. */
  keepChars: number;
  signal: AbortSignal;
};

/**
 * Searches a file too large to read whole, a block of lines at a time, with the same results
 * as searching it whole (up to `keepMatches`). Returns null for a binary file (a NUL byte
 * anywhere), which is skipped, as ripgrep does.
 */
export async function searchStreamed(file: string, search: StreamSearch): Promise<FileHits | null> {
  const state = new LineScan(search);
  let carry: Buffer = Buffer.alloc(0);
  let overlong = false;
  const stream = createReadStream(file, {highWaterMark: 1024 * 1024});
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (search.signal.aborted || chunk.includes(0)) return null;
      let data = chunk;
      if (overlong) {
        // Still inside a line already cut: its rest is skipped up to its end.
        const end = chunk.indexOf(10);
        if (end === -1) continue;
        data = chunk.subarray(end);
        overlong = false;
      }
      if (carry.length > 0) data = Buffer.concat([carry, data]);
      const last = data.lastIndexOf(10);
      if (last === -1) {
        carry = data;
        if (carry.length > STREAM_MAX_LINE_BYTES) {
          carry = Buffer.from(carry.subarray(0, STREAM_MAX_LINE_BYTES));
          overlong = true;
        }
        continue;
      }
      // A copy: the rest of the line must not pin the whole chunk in memory.
      carry = Buffer.from(data.subarray(last + 1));
      state.block(data.subarray(0, last).toString('utf8'));
    }
  } catch {
    return null; // unreadable: skipped, like the whole-file path does
  } finally {
    stream.destroy();
  }
  if (carry.length > 0) state.block(carry.toString('utf8'));
  return state.hits;
}

/** The line-by-line state carried from one block to the next. */
class LineScan {
  readonly hits: FileHits = {lines: new Map(), matches: 0};
  private lineNumber = 0;
  private kept = 0;
  /** Trailing context still owed to the last kept match. */
  private after = 0;
  /** The last `context` lines, for the leading context of a match in the next block. */
  private before: {number: number; text: string}[] = [];

  constructor(private readonly search: StreamSearch) {}

  /** `text`: whole lines, joined by \n, without the final line break. */
  block(text: string): void {
    if (!this.search.prefilter.test(text) && this.after === 0) {
      this.skip(text);
      return;
    }
    for (const raw of text.split('\n')) this.line(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
  }

  /** A block without a match: only its line count and its last `context` lines matter. */
  private skip(text: string): void {
    let count = 1;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
    const context = this.search.context;
    if (context > 0) {
      let start = text.length;
      for (let taken = 0; taken < context && start > 0; taken += 1) start = text.lastIndexOf('\n', start - 1);
      const tail = (start <= 0 ? text : text.slice(start + 1)).split('\n').slice(-context);
      const first = this.lineNumber + count - tail.length + 1;
      this.before = [...this.before, ...tail.map((line, index) => ({number: first + index, text: this.cut(line)}))].slice(-context);
    }
    this.lineNumber += count;
  }

  private line(line: string): void {
    this.lineNumber += 1;
    const {regex, context, keepMatches} = this.search;
    if (regex.test(line)) {
      this.hits.matches += 1;
      if (this.kept < keepMatches) {
        this.kept += 1;
        for (const near of this.before) if (!this.hits.lines.has(near.number)) this.hits.lines.set(near.number, {text: near.text, isMatch: false});
        this.hits.lines.set(this.lineNumber, {text: this.cut(line), isMatch: true});
        this.after = context;
      } else if (this.after > 0) {
        // Where showing stops: kept as a match, so the result ends its context here too.
        this.hits.lines.set(this.lineNumber, {text: this.cut(line), isMatch: true});
        this.after = 0;
      }
    } else if (this.after > 0) {
      this.hits.lines.set(this.lineNumber, {text: this.cut(line), isMatch: false});
      this.after -= 1;
    }
    if (context > 0) {
      this.before.push({number: this.lineNumber, text: this.cut(line)});
      if (this.before.length > context) this.before.shift();
    }
  }

  private cut(line: string): string {
    return line.length > this.search.keepChars ? line.slice(0, this.search.keepChars + 1) : line;
  }
}
