import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import type {TextTools} from './markdown-table.js';

/** Ink's own measuring and wrapping, for the markdown renderer's tables (see TextTools). */
export const textTools: TextTools = {
  width: stringWidth,
  wrap: (text, columns) => wrapAnsi(text, columns, {hard: true, trim: true}),
  cut: (line, columns) => (stringWidth(line) <= columns ? line : wrapAnsi(line, columns, {hard: true, trim: false, wordWrap: false}).split('\n', 1)[0]!),
};
