/**
 * Where a streaming markdown answer can be cut so the part before the cut renders the same on its
 * own: after a blank line outside a code fence, or after the line that closes a fence. Pure.
 */

/** An open code fence: its character and length (a closing fence needs at least as many). */
export type Fence = {char: '`' | '~'; length: number; line: string};

/** How far a text has been scanned, so a growing text is scanned once, not once per delta. */
export type SplitScan = {
  /** Offset just past the last complete line scanned. */
  scanned: number;
  /** The fence open at `scanned`, or null. */
  fence: Fence | null;
  /** The last safe cut found (0 = none). Everything before it is finished blocks. */
  safe: number;
};

export const emptyScan: SplitScan = {scanned: 0, fence: null, safe: 0};

const fencePattern = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * Scans the complete lines of `text` after `from.scanned`. Only complete lines count: a line still
 * streaming might yet turn out to be a fence or stop being blank.
 */
export function scanSafePoints(text: string, from: SplitScan = emptyScan): SplitScan {
  let {scanned, fence, safe} = from;
  let start = scanned;
  for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
    const line = text.slice(start, end);
    const next = end + 1;
    const marker = fencePattern.exec(line);
    if (fence) {
      if (marker && marker[1]![0] === fence.char && marker[1]!.length >= fence.length && marker[2]!.trim() === '') {
        fence = null;
        safe = next;
      }
    } else if (marker && !(marker[1]![0] === '`' && marker[2]!.includes('`'))) {
      // A backtick fence's info string may not contain a backtick (CommonMark), so "```a``` b" is
      // inline code, not a fence.
      fence = {char: marker[1]![0] as Fence['char'], length: marker[1]!.length, line};
    } else if (line.trim() === '') {
      safe = next;
    }
    start = next;
    scanned = next;
  }
  return {scanned, fence, safe};
}

/** The offset of the last safe cut in `text` (0 when there is none). */
export function splitAtSafePoint(text: string): number {
  return scanSafePoints(text).safe;
}
