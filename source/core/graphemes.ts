/**
 * Characters as a person sees them (graphemes): a skin-toned thumb, a flag or an accented letter is
 * several code points but one character, which a cursor steps over and a highlight never cuts.
 */
let segmenter: Intl.Segmenter | undefined;
/** The text's graphemes (what a person sees as one character each), by ICU's rules. */
export const graphemes = (text: string) => (segmenter ??= new Intl.Segmenter(undefined, {granularity: 'grapheme'})).segment(text);

/** Where the character before `index` starts. */
export function previousBoundary(text: string, index: number): number {
  if (index <= 0) return 0;
  const at = Math.min(index, text.length);
  // Between two plain ASCII characters (not CR LF) is always a boundary: no need for ICU.
  if (isPlain(text, at - 1) && (at === 1 || isPlain(text, at - 2))) return at - 1;
  return graphemes(text).containing(at - 1)!.index;
}

/** Where the character at `index` ends. */
export function nextBoundary(text: string, index: number): number {
  if (index >= text.length) return text.length;
  if (isPlain(text, index) && (index + 1 === text.length || isPlain(text, index + 1))) return index + 1;
  const at = graphemes(text).containing(index)!;
  return at.index + at.segment.length;
}

/** An ASCII character that cannot join its neighbour into one character (CR and LF can). */
function isPlain(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code < 0x7f && code !== 13 && code !== 10;
}
