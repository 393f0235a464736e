import {createWriteStream, type WriteStream} from 'node:fs';
import {tmpdir} from 'node:os';
import {StringDecoder} from 'node:string_decoder';
import {LIMITS} from '../core/limits.js';
import {formatBytes} from './fs/text.js';
import {newSpillPath} from './spill-files.js';

/**
 * Keeps a command's output bounded: the first `headBytes` and the last `tailBytes`, whatever
 * the command prints. Once the output outgrows both, everything (from the first byte) is spilled
 * to a temp file, so the model can still grep the part that was dropped. The spill file is
 * bounded too, the same way: its first `spillLimits.head` bytes and its last `spillLimits.tail`
 * (`yes | head -c 500M` must not fill the disk).
 */
export class OutputKeeper {
  private readonly head: Buffer[] = [];
  private headLength = 0;
  private tail: Buffer[] = [];
  private tailLength = 0;
  private spill: WriteStream | null = null;
  private spillError: string | null = null;
  /** Producers paused for the spill file, woken by 'drain' or by its failure. */
  private drainWaiters: (() => void)[] = [];
  /** Spilled text not yet written: the current line, so a secret is never cut in two. */
  private spillLine = '';
  private readonly spillDecoder = new StringDecoder('utf8');
  /** Bytes written to the spill file's head; the rest waits in `spillTail` until close. */
  private spillHead = 0;
  private spillTail: Buffer[] = [];
  private spillTailLength = 0;
  total = 0;
  spillPath: string | null = null;

  constructor(
    private readonly headBytes: number,
    private readonly tailBytes: number,
    private readonly spillDir: string = tmpdir(),
    /** Masks secrets in the spill file (the text for the model is masked by the loop). */
    private readonly redact: (text: string) => string = text => text,
    private readonly spillLimits: {head: number; tail: number} = {head: LIMITS.bashSpillHeadBytes, tail: LIMITS.bashSpillTailBytes},
  ) {}

  /** Returns false when the spill file wants the producer to wait for 'drain'. */
  push(chunk: Buffer): boolean {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headLength < this.headBytes) {
      const take = rest.subarray(0, this.headBytes - this.headLength);
      this.head.push(take);
      this.headLength += take.length;
      rest = rest.subarray(take.length);
    }
    let ready = true;
    if (this.spill) {
      ready = this.spillError ? true : this.toSpill(chunk);
    } else if (this.total > this.headBytes + this.tailBytes) {
      this.startSpill();
      for (const part of [...this.head, ...this.tail, rest]) ready = this.toSpill(part);
    }
    if (rest.length > 0) {
      this.tail.push(rest);
      this.tailLength += rest.length;
      while (this.tail.length > 1 && this.tailLength - this.tail[0]!.length >= this.tailBytes) {
        this.tailLength -= this.tail.shift()!.length;
      }
    }
    return ready;
  }

  /** Into the spill file's head while it has room, else into the in-memory tail kept for close(). */
  private toSpill(bytes: Buffer): boolean {
    let rest = bytes;
    let ready = true;
    const room = this.spillLimits.head - this.spillHead;
    if (room > 0) {
      const take = rest.subarray(0, room);
      this.spillHead += take.length;
      ready = this.writeSpill(take);
      rest = rest.subarray(take.length);
    }
    if (rest.length > 0) {
      this.spillTail.push(rest);
      this.spillTailLength += rest.length;
      while (this.spillTail.length > 1 && this.spillTailLength - this.spillTail[0]!.length >= this.spillLimits.tail) {
        this.spillTailLength -= this.spillTail.shift()!.length;
      }
    }
    return ready;
  }

  /** Spilled bytes that are in neither the spill file's head nor its tail. */
  private get spillDropped(): number {
    return Math.max(0, this.total - this.spillHead - this.spillLimits.tail);
  }

  /**
   * Masks what is pending, then writes it up to the last line break (a secret holds none): only
   * the unwritten end can hold the start of a secret still arriving. A line that grows past
   * 64 KiB goes out but for its last 1 KiB.
   */
  private writeSpill(bytes: Buffer, end = false): boolean {
    // A failed spill file never drains: saying "wait" here would pause the output for good.
    if (this.spillError) return true;
    this.spillLine = this.redact(this.spillLine + this.spillDecoder.write(bytes) + (end ? this.spillDecoder.end() : ''));
    let cut = end ? this.spillLine.length : this.spillLine.lastIndexOf('\n') + 1;
    if (cut === 0 && this.spillLine.length > 64 * 1024) cut = this.spillLine.length - 1024;
    if (cut === 0) return true;
    const text = this.spillLine.slice(0, cut);
    this.spillLine = this.spillLine.slice(cut);
    return this.spill!.write(text);
  }

  /** Calls `listener` once the producer may go on: the spill file drained, or gave up. */
  onDrain(listener: () => void): void {
    if (!this.spill || this.spillError) queueMicrotask(listener);
    else this.drainWaiters.push(listener);
  }

  private wakeWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const waiter of waiters) waiter();
  }

  private startSpill(): void {
    this.spillPath = newSpillPath(this.spillDir);
    this.spill = createWriteStream(this.spillPath, {mode: 0o600});
    this.spill.on('drain', () => this.wakeWaiters());
    // A missing temp dir or a full disk: stop spilling, keep head and tail in memory as always,
    // and wake the paused output, for whom the 'drain' it waits for will never come.
    this.spill.on('error', error => {
      this.spillError ??= error.message;
      this.wakeWaiters();
    });
  }

  async close(): Promise<void> {
    const spill = this.spill;
    if (!spill || this.spillError) return;
    const tail = Buffer.concat(this.spillTail);
    this.spillTail = [];
    if (this.spillDropped === 0) {
      this.writeSpill(tail, true);
    } else {
      this.writeSpill(Buffer.alloc(0), true);
      let kept = tail.subarray(tail.length - this.spillLimits.tail);
      // The tail starts at a line: a secret cut in two would no longer be masked.
      const lineStart = kept.indexOf(10);
      if (lineStart !== -1) kept = kept.subarray(lineStart + 1);
      const dropped = this.total - this.spillHead - kept.length;
      spill.write(`\n[… ${dropped.toLocaleString('en-US')} bytes dropped here: nib keeps the first ${formatBytes(this.spillLimits.head)} and the last ${formatBytes(this.spillLimits.tail)} of a command's output …]\n`);
      this.writeSpill(kept, true);
    }
    // 'close' comes after 'finish' and after 'error' (a full disk can fail the last write).
    await new Promise<void>(resolve => {
      spill.once('close', resolve);
      spill.end();
    });
  }

  /** The text for the model: all of it, or head + a marker of what was dropped + tail. */
  render(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    if (this.total <= this.headBytes + this.tailBytes) return head + Buffer.concat(this.tail).toString('utf8');
    const tailBuffer = Buffer.concat(this.tail);
    const tail = tailBuffer.subarray(Math.max(0, tailBuffer.length - this.tailBytes));
    const dropped = this.total - this.headLength - tail.length;
    const where = this.spillError
      ? `; the full output could not be saved (${this.spillError})`
      : this.spillPath && this.spillDropped > 0
        ? `; the first ${formatBytes(this.spillLimits.head)} and last ${formatBytes(this.spillLimits.tail)} are in ${this.spillPath}`
        : this.spillPath
          ? `; the full output is in ${this.spillPath}`
          : '';
    // A cut can fall inside a multi-byte character; drop the broken ends rather than show U+FFFD.
    const headText = head.replace(/\uFFFD+$/, '');
    const tailText = tail.toString('utf8').replace(/^\uFFFD+/, '');
    return `${headText}\n[… ${dropped.toLocaleString('en-US')} bytes of output dropped${where} …]\n${tailText}`;
  }
}

/**
 * Forwards output to the UI without flooding it: chunks are coalesced per tick of `intervalMs`,
 * and when a burst is larger than `maxChunk` only its end is sent (the UI shows a tail anyway).
 */
export function createOutputForwarder(
  onOutput: ((chunk: string) => void) | undefined,
  intervalMs = 50,
  maxChunk = 16 * 1024,
): {write: (chunk: Buffer) => void; flush: () => void} {
  if (!onOutput) return {write: () => undefined, flush: () => undefined};
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let timer: NodeJS.Timeout | null = null;
  const send = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending === '') return;
    const text = pending.length > maxChunk ? `…${pending.slice(-maxChunk)}` : pending;
    pending = '';
    onOutput(text);
  };
  return {
    write: chunk => {
      pending += decoder.write(chunk);
      if (pending.length > maxChunk * 2) pending = pending.slice(-maxChunk);
      timer ??= setTimeout(send, intervalMs);
    },
    // Only the last flush ends the decoder: ending it on every tick turned a character split
    // between two reads into two U+FFFD.
    flush: () => {
      pending += decoder.end();
      send();
    },
  };
}
