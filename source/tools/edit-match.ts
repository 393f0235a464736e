/**
 * Where `old_string` is in a file. Exact first; then, because models often retype text slightly
 * wrong (trailing spaces dropped, quotes "smartened", indentation shifted), tolerant strategies
 * in a fixed order, each looser than the last and including the ones before it. A tolerant match
 * is only accepted when it is unique, so looseness never picks between two places.
 */

export const STRATEGIES = ['trailing-whitespace', 'typography', 'indentation'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export type Span = {start: number; end: number};

export type MatchResult =
  | {kind: 'found'; spans: Span[]; strategy: Strategy | null}
  | {kind: 'multiple'; lines: number[]; strategy: Strategy | null}
  | {kind: 'none'};

export function findOccurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

/** 1-based line numbers of offsets (sorted ascending), counted in one pass. */
export function lineNumbersOf(text: string, offsets: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let from = 0;
  for (const offset of offsets) {
    for (let at = text.indexOf('\n', from); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
      line += 1;
      from = at + 1;
    }
    lines.push(line);
  }
  return lines;
}

export function findMatch(text: string, oldString: string, replaceAll: boolean): MatchResult {
  const exact = findOccurrences(text, oldString);
  if (exact.length === 1 || (exact.length > 1 && replaceAll)) {
    return {kind: 'found', spans: exact.map(start => ({start, end: start + oldString.length})), strategy: null};
  }
  if (exact.length > 1) return {kind: 'multiple', lines: lineNumbersOf(text, exact), strategy: null};

  for (const [level, strategy] of STRATEGIES.entries()) {
    const needle = normalize(oldString, level).text;
    if (needle.trim() === '') continue;
    const haystack = normalize(text, level);
    const hits = findOccurrences(haystack.text, needle);
    if (hits.length === 0) continue;
    const spans = hits.map(hit => ({start: haystack.map[hit]!, end: haystack.map[hit + needle.length - 1]! + 1}));
    if (hits.length > 1) {
      return {kind: 'multiple', lines: lineNumbersOf(text, spans.map(span => span.start)), strategy};
    }
    return {kind: 'found', spans, strategy};
  }
  return {kind: 'none'};
}

const TYPOGRAPHY: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201A': "'", '\u201B': "'", '\u2032': "'",
  '\u201C': '"', '\u201D': '"', '\u201E': '"', '\u201F': '"', '\u2033': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\u00A0': ' ', '\u2007': ' ', '\u2009': ' ', '\u200A': ' ', '\u202F': ' ', '\u3000': ' ',
};

function isBlank(char: string | undefined): boolean {
  return char === ' ' || char === '\t' || char === '\r' || char === '\u00A0' || char === '\f' || char === '\v';
}

/**
 * The text under strategy `level` (0-based index into STRATEGIES, cumulative), with `map[i]` the
 * offset in the original of normalized character i, so a match maps back to original bytes.
 * Every normalization deletes characters or replaces one by one, which keeps the map simple.
 */
export function normalize(text: string, level: number): {text: string; map: Int32Array} {
  const out: string[] = [];
  const map = new Int32Array(text.length + 1);
  let length = 0;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    let from = lineStart;
    let to = lineEnd;
    while (to > from && isBlank(text[to - 1])) to -= 1;
    if (level >= 2) while (from < to && isBlank(text[from])) from += 1;
    for (let i = from; i < to; i += 1) {
      const char = text[i]!;
      out.push(level >= 1 ? (TYPOGRAPHY[char] ?? char) : char);
      map[length++] = i;
    }
    if (newline === -1) break;
    out.push('\n');
    map[length++] = newline;
    lineStart = newline + 1;
  }
  map[length] = text.length;
  return {text: out.join(''), map: map.subarray(0, length + 1)};
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
 * shows the model where it probably meant: bigram similarity, ignoring surrounding whitespace.
 */
export function nearestLine(text: string, oldString: string): {line: number; text: string} | null {
  const target = normalize(oldString.split('\n').find(line => line.trim() !== '') ?? '', 2).text;
  if (target.length < 3) return null;
  const targetGrams = bigrams(target);
  let best: {line: number; text: string; score: number} | null = null;
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const candidate = normalize(raw, 2).text;
    if (candidate.length < target.length / 2 || candidate.length > target.length * 2) continue;
    const score = dice(targetGrams, candidate);
    if (score > (best?.score ?? 0.5)) best = {line: index + 1, text: raw, score};
  }
  return best && {line: best.line, text: best.text};
}

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (let i = 0; i < text.length - 1; i += 1) {
    const gram = text.slice(i, i + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

function dice(targetGrams: Map<string, number>, candidate: string): number {
  const remaining = new Map(targetGrams);
  let total = 0;
  for (const count of targetGrams.values()) total += count;
  let shared = 0;
  for (let i = 0; i < candidate.length - 1; i += 1) {
    const gram = candidate.slice(i, i + 2);
    const left = remaining.get(gram);
    if (left) {
      shared += 1;
      remaining.set(gram, left - 1);
    }
  }
  return (2 * shared) / (total + candidate.length - 1);
}
