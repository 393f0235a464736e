import stringWidth from 'string-width';
import {graphemes} from '../core/graphemes.js';

/**
 * How many terminal columns text takes, and text cut to a number of columns: for rows that must
 * fit exactly (the diff view's, a tool badge's). Measured as Ink measures (string-width), so a row
 * cut here is the row Ink draws. Pure.
 */

/** Text of printable ASCII only: one column a character, measured without string-width. */
export const isPrintableAscii = (text: string): boolean => /^[\x20-\x7E]*$/.test(text);

export function textWidth(text: string): number {
  return isPrintableAscii(text) ? text.length : stringWidth(text);
}

/** `text` cut to `width` columns, with `…` when something was cut; never inside a character. */
export function truncate(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const {segment} of graphemes(text)) {
    const columns = textWidth(segment);
    if (used + columns > width - 1) break;
    out += segment;
    used += columns;
  }
  return `${out}…`;
}
