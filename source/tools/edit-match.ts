/**
 * Where `old_string` is in a file. Exact first; then, because models often retype text slightly
 * wrong (trailing spaces dropped, quotes "smartened", indentation shifted), tolerant strategies
 * in a fixed order, each looser than the last and including the ones before it. A tolerant match
 * is only accepted when it is unique, so looseness never picks between two places.
 */

const STRATEGIES = ['trailing-whitespace', 'typography', 'indentation'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export type Span = {start: number; end: number};

export type MatchResult =
  | {kind: 'found'; spans: Span[]; strategy: Strategy | null}
  | {kind: 'multiple'; count: number; lines: LineSample; strategy: Strategy | null}
  | {kind: 'none'};

function findOccurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

/** The first few distinct lines a string occurs on, and whether it occurs on more. */
export type LineSample = {lines: number[]; more: boolean};

/** Enough line numbers to show where the matches are; the message lists no more. */
const SAMPLE_LINES = 10;

/**
 * 1-based line numbers of offsets (sorted ascending), counted in one pass and stopped once the
 * sample is full. The scan keeps the next line break it found: looking for it again from the
 * last line start for every offset made a one-line file with a million matches take 24 s.
 */
function sampleLines(text: string, offsets: Iterable<number>): LineSample {
  const lines: number[] = [];
  let line = 1;
  let nextBreak = text.indexOf('\n');
  for (const offset of offsets) {
    while (nextBreak !== -1 && nextBreak < offset) {
      line += 1;
      nextBreak = text.indexOf('\n', nextBreak + 1);
    }
    if (lines.at(-1) === line) continue;
    if (lines.length === SAMPLE_LINES) return {lines, more: true};
    lines.push(line);
  }
  return {lines, more: false};
}

/**
 * Occurrences for a uniqueness check: a second one overlapping the first counts too ("}\n}" is
 * twice in "}\n}\n}"), or an edit would silently pick the leftmost of two places.
 */
function occurrencesForUniqueness(haystack: string, needle: string, replaceAll: boolean): number[] {
  const found = findOccurrences(haystack, needle);
  if (found.length !== 1 || replaceAll) return found;
  const overlapping = haystack.indexOf(needle, found[0]! + 1);
  return overlapping === -1 ? found : [found[0]!, overlapping];
}

export function findMatch(text: string, oldString: string, replaceAll: boolean): MatchResult {
  const exact = occurrencesForUniqueness(text, oldString, replaceAll);
  if (exact.length === 1 || (exact.length > 1 && replaceAll)) {
    return {kind: 'found', spans: exact.map(start => ({start, end: start + oldString.length})), strategy: null};
  }
  if (exact.length > 1) return {kind: 'multiple', count: exact.length, lines: sampleLines(text, exact), strategy: null};

  for (const [level, strategy] of STRATEGIES.entries()) {
    const needle = normalize(oldString, level).text;
    if (needle.trim() === '') continue;
    const haystack = normalize(text, level);
    const hits = occurrencesForUniqueness(haystack.text, needle, replaceAll);
    if (hits.length === 0) continue;
    if (hits.length > 1) {
      // Mapped back lazily: only the hits the sample needs, not a million of them.
      const starts = (function* () {
        for (const hit of hits) yield haystack.toOriginal(hit);
      })();
      return {kind: 'multiple', count: hits.length, lines: sampleLines(text, starts), strategy};
    }
    const hit = hits[0]!;
    return {kind: 'found', spans: [{start: haystack.toOriginal(hit), end: haystack.toOriginal(hit + needle.length - 1) + 1}], strategy};
  }
  return {kind: 'none'};
}

const TYPOGRAPHY: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201A': "'", '\u201B': "'", '\u2032': "'",
  '\u201C': '"', '\u201D': '"', '\u201E': '"', '\u201F': '"', '\u2033': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\u00A0': ' ', '\u2007': ' ', '\u2009': ' ', '\u200A': ' ', '\u202F': ' ', '\u3000': ' ',
};
const TYPOGRAPHY_PATTERN = new RegExp(`[${Object.keys(TYPOGRAPHY).join('')}]`, 'g');

function plainTypography(text: string): string {
  return text.replace(TYPOGRAPHY_PATTERN, char => TYPOGRAPHY[char] ?? char);
}

function isBlank(char: string | undefined): boolean {
  return char === ' ' || char === '\t' || char === '\r' || char === '\u00A0' || char === '\f' || char === '\v';
}

type Normalized = {
  text: string;
  /** The offset in the original text of normalized offset `offset`. */
  toOriginal: (offset: number) => number;
};

/**
 * The text under strategy `level` (0-based index into STRATEGIES, cumulative), with a way back
 * to original offsets. Typography is replaced one character for one, and whitespace is only
 * deleted, so the normalized text is a list of original runs: the map back is a binary search
 * over run starts, not a table as long as the file (which, for 10 MB, cost seconds).
 */
function normalize(text: string, level: number): Normalized {
  const source = level >= 1 ? plainTypography(text) : text;
  const parts: string[] = [];
  const runStarts: number[] = [];
  const runOrigins: number[] = [];
  let length = 0;
  const addRun = (from: number, to: number) => {
    if (to <= from) return;
    runStarts.push(length);
    runOrigins.push(from);
    parts.push(source.slice(from, to));
    length += to - from;
  };
  let lineStart = 0;
  for (;;) {
    const newline = source.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? source.length : newline;
    let from = lineStart;
    let to = lineEnd;
    while (to > from && isBlank(source[to - 1])) to -= 1;
    if (level >= 2) while (from < to && isBlank(source[from])) from += 1;
    if (newline === -1) {
      addRun(from, to);
      break;
    }
    if (to === lineEnd) {
      addRun(from, newline + 1); // nothing trimmed at the end: the line break joins the run
    } else {
      addRun(from, to);
      addRun(newline, newline + 1);
    }
    lineStart = newline + 1;
  }
  const toOriginal = (offset: number): number => {
    let low = 0;
    let high = runStarts.length - 1;
    if (high < 0) return 0;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (runStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return runOrigins[low]! + (offset - runStarts[low]!);
  };
  return {text: parts.join(''), toOriginal};
}

/**
 * With indentation ignored, the match starts at the first non-blank character of its line and
 * the model's `new_string` carries the model's indentation. Widen the span to the line start and
 * shift `new_string` by the difference, so the replacement sits at the file's indentation.
 */
export function reindent(text: string, span: Span, oldString: string, newString: string): {span: Span; newString: string} {
  const lineStart = text.lastIndexOf('\n', span.start - 1) + 1;
  if (text.slice(lineStart, span.start).trim() !== '') return {span, newString};
  const fileIndent = text.slice(lineStart, span.start);
  const firstOldLine = oldString.split('\n').find(line => line.trim() !== '') ?? '';
  const oldIndent = firstOldLine.slice(0, firstOldLine.length - firstOldLine.trimStart().length);
  const shift = (line: string): string => {
    if (line.trim() === '') return line;
    if (fileIndent.length >= oldIndent.length) return fileIndent.slice(0, fileIndent.length - oldIndent.length) + line;
    const remove = oldIndent.length - fileIndent.length;
    const lead = line.length - line.trimStart().length;
    return line.slice(Math.min(remove, lead));
  };
  // new_string's first line may lack the indentation the model gave old_string's first line.
  const lines = newString.split('\n');
  const shifted = lines.map((line, index) => (index === 0 && !line.startsWith(oldIndent) ? fileIndent + line.trimStart() : shift(line)));
  return {span: {start: lineStart, end: span.end}, newString: shifted.join('\n')};
}

/** Replaces spans (ascending, non-overlapping) literally: no `$&` or `$1` interpretation. */
export function replaceSpans(text: string, spans: readonly Span[], replacement: string): string {
  const parts: string[] = [];
  let from = 0;
  for (const span of spans) {
    parts.push(text.slice(from, span.start), replacement);
    from = span.end;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

/**
 * The line most like the first meaningful line of `old_string`, for a "not found" message that
 * shows the model where it probably meant: bigram (Dice) similarity, ignoring surrounding
 * whitespace and typography. Bigrams are counted as numbers in reused maps: this runs over every
 * line of the file, and string slices and map copies per line made a 200,000-line miss take seconds.
 */
export function nearestLine(text: string, oldString: string): {line: number; text: string} | null {
  const target = plainTypography(oldString.split('\n').find(line => line.trim() !== '') ?? '').trim();
  if (target.length < 3) return null;
  const targetCounts = bigramCounts(target, new Map());
  const targetTotal = target.length - 1;
  const used = new Map<number, number>();
  let best: {line: number; text: string; score: number} | null = null;
  let lineNumber = 0;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    lineNumber += 1;
    const raw = text.slice(lineStart, lineEnd);
    lineStart = lineEnd + 1;
    const trimmedLength = raw.trim().length;
    if (trimmedLength < target.length / 2 || trimmedLength > target.length * 2) continue;
    const candidate = plainTypography(raw).trim();
    used.clear();
    let shared = 0;
    for (let i = 0; i < candidate.length - 1; i += 1) {
      const gram = candidate.charCodeAt(i) * 65536 + candidate.charCodeAt(i + 1);
      const available = targetCounts.get(gram) ?? 0;
      const taken = used.get(gram) ?? 0;
      if (taken < available) {
        shared += 1;
        used.set(gram, taken + 1);
      }
    }
    const score = (2 * shared) / (targetTotal + candidate.length - 1);
    if (score > (best?.score ?? 0.5)) best = {line: lineNumber, text: raw, score};
    if (newline === -1) break;
  }
  return best && {line: best.line, text: best.text};
}

function bigramCounts(text: string, counts: Map<number, number>): Map<number, number> {
  for (let i = 0; i < text.length - 1; i += 1) {
    const gram = text.charCodeAt(i) * 65536 + text.charCodeAt(i + 1);
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}
