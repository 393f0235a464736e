/**
 * How many terminal columns text takes, and text cut to a number of columns: for rows that must
 * fit exactly (the diff view's, a tool badge's). Pure.
 */

/** Columns a code point takes: 2 for East Asian wide characters and emoji, 0 for combining marks. */
export function charWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f) || (code >= 0xfe00 && code <= 0xfe0f)) return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

export function textWidth(text: string): number {
  let width = 0;
  for (const char of text) width += charWidth(char);
  return width;
}

/** `text` cut to `width` columns, with `…` when something was cut. */
export function truncate(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    if (used + charWidth(char) > width - 1) break;
    out += char;
    used += charWidth(char);
  }
  return out + '…';
}
