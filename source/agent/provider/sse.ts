/**
 * Server-sent events framing, pure: text in (any cut), `data` payloads out.
 *
 * Lenient where real servers are sloppy: `\n`, `\r\n` or `\r` line ends; a final event with no
 * blank line after it is still delivered at end of body; comment lines (`: keep-alive`) are
 * ignored. Bytes must be decoded by the caller with a streaming TextDecoder so a UTF-8 character
 * cut between two reads is not mangled.
 */
import {LIMITS} from '../../core/limits.js';

export type SseEvent = {
  /** The `event:` field, when the server sent one. */
  event: string | null;
  /** The `data:` lines of one event. Kept apart so a server that forgets the blank line between
   * JSON events (one event, several data lines) can still be read line by line. */
  data: string[];
};

export type SseParser = {
  /** Feeds decoded text; returns the events it completed. */
  feed: (text: string) => SseEvent[];
  /** End of body: returns the event still open, if any. */
  end: () => SseEvent[];
  /**
   * A line grew past LIMITS.sseMaxLineChars without a line break. The parser then drops it and reads
   * nothing more; the caller stops the stream and says so.
   */
  readonly lineTooLong: boolean;
};

export function createSseParser(): SseParser {
  const maxLineLength = LIMITS.sseMaxLineChars;
  // The start of an unfinished line, as the reads that brought it. Kept as pieces and joined once
  // its line ends: joining on every read made a line with no break cost quadratic time (32 MB in
  // 11 s), and the pieces hold no line end, so only the newest read is ever searched.
  let pending: string[] = [];
  let pendingLength = 0;
  let tooLong = false;
  let data: string[] = [];
  let event: string | null = null;
  let sawCr = false;
  let atStart = true;

  const dispatch = (out: SseEvent[]) => {
    if (data.length > 0) out.push({event, data});
    data = [];
    event = null;
  };

  const line = (text: string, out: SseEvent[]) => {
    if (text === '') return dispatch(out);
    if (text.charCodeAt(0) === 58 /* ':' */) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* ' ' */) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    // Older llama.cpp servers report a mid-stream failure as an `error:` field, not `data:`.
    // Read as an error event, the failure is not lost and the cut-off text does not pass for an answer.
    else if (field === 'error') {
      event = 'error';
      data.push(value);
    }
    // id: and retry: do not matter for a single request/response stream.
  };

  return {
    feed(text) {
      const out: SseEvent[] = [];
      if (tooLong) return out;
      if (atStart && text.length > 0) {
        atStart = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      // A `\r\n` split across two reads: the `\r` already ended the line, so skip the `\n`.
      if (sawCr && text.charCodeAt(0) === 10) text = text.slice(1);
      sawCr = false;
      let start = 0;
      // The next \n and \r at or after `start`, each searched again only once passed: a body
      // with no \r at all made every line scan to the end (a 5 MB read took 6.7 s, quadratic).
      let lf = -1;
      let cr = -1;
      const next = (char: string) => {
        const at = text.indexOf(char, start);
        return at === -1 ? Infinity : at;
      };
      for (;;) {
        if (lf < start) lf = next('\n');
        if (cr < start) cr = next('\r');
        const end = Math.min(cr, lf);
        if (end === Infinity) break;
        if (pendingLength + end - start > maxLineLength) return stop(out);
        if (pending.length > 0) {
          pending.push(text.slice(start, end));
          line(pending.join(''), out);
          pending = [];
          pendingLength = 0;
        } else line(text.slice(start, end), out);
        if (text.charCodeAt(end) === 13) {
          if (end + 1 === text.length) sawCr = true;
          else if (text.charCodeAt(end + 1) === 10) {
            start = end + 2;
            continue;
          }
        }
        start = end + 1;
      }
      if (start < text.length) {
        if (pendingLength + text.length - start > maxLineLength) return stop(out);
        pending.push(start === 0 ? text : text.slice(start));
        pendingLength += text.length - start;
      }
      return out;
    },
    end() {
      const out: SseEvent[] = [];
      if (tooLong) return out;
      if (pending.length > 0) line(pending.join(''), out);
      pending = [];
      pendingLength = 0;
      dispatch(out);
      return out;
    },
    get lineTooLong() {
      return tooLong;
    },
  };

  /** The events completed before the long line still count; the line and the event it was in do not. */
  function stop(out: SseEvent[]): SseEvent[] {
    tooLong = true;
    pending = [];
    pendingLength = 0;
    data = [];
    return out;
  }
}
