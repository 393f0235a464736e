import {LIMITS} from '../core/limits.js';
import {formatBytes} from './fs/text.js';
import type {ToolResult} from '../core/tool.js';

/** One file's findings, whichever engine found them. */
export type FileHits = {
  /** Matching and context lines by line number. */
  lines: Map<number, {text: string; isMatch: boolean}>;
  matches: number;
};

/**
 * Keeps the first `max` matching lines in path order without holding every match of a huge
 * search: whenever enough is kept, files sorting after the point where `max` is reached are
 * dropped (only counted), since a file found later can only push that point earlier.
 */
export class Collector {
  private readonly files = new Map<string, FileHits>();
  private kept = 0;
  private boundary: string | null = null;
  totalMatches = 0;
  totalFiles = 0;
  /** Files with matches that a deny rule keeps from being read, and the first such rule. */
  private denied = 0;
  private denyRule = '';

  private readonly maxBytes: number;
  /** The deny rule that forbids reading a file found, or null (a read rule covers grep too). */
  private readonly deniedBy: (file: string) => string | null;

  constructor(
    private readonly max: number,
    options: {maxBytes?: number; deniedBy?: (file: string) => string | null} = {},
  ) {
    this.maxBytes = options.maxBytes ?? LIMITS.grepMaxBytes;
    this.deniedBy = options.deniedBy ?? (() => null);
  }

  add(file: string, hits: FileHits): void {
    if (hits.matches === 0) return;
    const rule = this.deniedBy(file);
    if (rule !== null) {
      this.denied += 1;
      this.denyRule ||= rule;
      return;
    }
    this.totalMatches += hits.matches;
    this.totalFiles += 1;
    if (this.boundary !== null && file > this.boundary) return; // counted above, never shown
    this.files.set(file, hits);
    this.kept += hits.matches;
    if (this.kept > this.max * 4) this.prune();
  }

  private prune(): void {
    let count = 0;
    for (const name of [...this.files.keys()].sort(comparePaths)) {
      if (count >= this.max) {
        this.kept -= this.files.get(name)!.matches;
        this.files.delete(name);
        continue;
      }
      count += this.files.get(name)!.matches;
      if (count >= this.max) this.boundary = name;
    }
  }

  render(show: (relative: string) => string, maxLineChars: number, args: {pattern: string; context?: number}, where: string): ToolResult {
    const denied =
      this.denied > 0 ? `[${this.denied} file${this.denied === 1 ? '' : 's'} with matches left out: the deny rule ${this.denyRule} keeps ${this.denied === 1 ? 'it' : 'them'} from being read.]` : '';
    if (this.totalMatches === 0) {
      const none = `No matches for ${JSON.stringify(args.pattern)} in ${where === '.' ? 'the workspace' : where}.`;
      return {content: denied ? `${none}\n\n${denied}` : none, isError: false, detail: {summary: '0 matches', matches: 0}};
    }
    const out: string[] = [];
    let shown = 0;
    let shownFiles = 0;
    let bytes = 0;
    let cutByBytes = false;
    files: for (const name of [...this.files.keys()].sort(comparePaths)) {
      if (shown >= this.max) break;
      shownFiles += 1;
      const hits = this.files.get(name)!;
      const display = show(name);
      let previous = -1;
      let lastMatch = -1;
      for (const lineNumber of [...hits.lines.keys()].sort((a, b) => a - b)) {
        const line = hits.lines.get(lineNumber)!;
        if (line.isMatch && shown >= this.max) break;
        // After the last match shown, only its own trailing context belongs.
        if (!line.isMatch && shown >= this.max && lineNumber > lastMatch + (args.context ?? 0)) break;
        // Without context every line stands alone; with it, `--` separates groups, as in grep.
        const startsGroup = previous === -1 ? out.length > 0 : lineNumber !== previous + 1;
        const text = line.text.length > maxLineChars ? `${line.text.slice(0, maxLineChars)} … [cut]` : line.text;
        const entry = `${display}${line.isMatch ? ':' : '-'}${lineNumber}${line.isMatch ? ':' : '-'} ${text}`;
        bytes += Buffer.byteLength(entry) + 4;
        if (bytes > this.maxBytes && shown > 0) {
          cutByBytes = true;
          break files;
        }
        if (startsGroup && (args.context ?? 0) > 0) out.push('--');
        out.push(entry);
        previous = lineNumber;
        if (line.isMatch) {
          shown += 1;
          lastMatch = lineNumber;
        }
      }
    }
    const left = this.totalMatches - shown;
    const files = `${this.totalFiles} file${this.totalFiles === 1 ? '' : 's'}`;
    const limit = cutByBytes ? ` (stopped at the ${formatBytes(this.maxBytes)} output limit)` : '';
    const footer =
      left > 0
        ? `\n\n[${shown} of ${this.totalMatches} matching lines shown (in ${shownFiles} of ${files})${limit}; ${left} left out. Narrow the pattern, path or glob${cutByBytes ? ', or use less context' : ', or raise max_results'}.]`
        : '';
    return {
      content: out.join('\n') + footer + (denied ? `\n\n${denied}` : ''),
      isError: false,
      detail: {summary: `${this.totalMatches} match${this.totalMatches === 1 ? '' : 'es'}`, matches: this.totalMatches},
    };
  }
}

function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
