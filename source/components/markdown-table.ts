/**
 * A markdown table drawn to fit the terminal: when its natural width is too wide, the widest
 * columns are narrowed first and their cells wrap inside them (long words are broken), so the
 * table keeps its shape and no character is lost. Pure.
 */
import Table from 'cli-table3';

export type Align = 'left' | 'center' | 'right' | null;

/**
 * Measuring and wrapping styled text, as Ink does it (text-tools.ts hands them over): imported
 * here, they would put Ink's modules in a chunk shared with the app, which measured 9 ms later to
 * take its first key.
 */
export type TextTools = {
  /** Columns the text takes, escape codes left out. */
  width: (text: string) => number;
  /** The text in lines of at most `columns`, at spaces where it can, a longer word broken. */
  wrap: (text: string, columns: number) => string;
  /** One line cut to at most `columns`. */
  cut: (line: string, columns: number) => string;
};

/** A cell's padding (one space each side) plus the border before it. */
const CELL_EXTRA = 3;
/** Narrower than this a column is unreadable; such a table is drawn at its natural width instead. */
const MIN_COLUMN = 4;

/**
 * Each column's text width so that the table fits `width`: columns at or under an even share keep
 * their width, the others get what is left, split evenly. Null when even `MIN_COLUMN` each does
 * not fit.
 */
export function fitColumns(natural: readonly number[], width: number): number[] | null {
  let room = width - 1 - CELL_EXTRA * natural.length;
  if (natural.reduce((sum, each) => sum + each, 0) <= room) return [...natural];
  const order = natural.map((_, index) => index).sort((a, b) => natural[a]! - natural[b]!);
  const fitted = [...natural];
  for (let k = 0; k < order.length; k++) {
    const share = Math.floor(room / (order.length - k));
    if (natural[order[k]!]! <= share) {
      room -= natural[order[k]!]!;
      continue;
    }
    if (share < MIN_COLUMN) return null;
    // The columns from k on are all wider than the share; the rounding's leftover goes to the widest.
    let extra = room - share * (order.length - k);
    for (let j = order.length - 1; j >= k; j--) fitted[order[j]!] = share + (extra-- > 0 ? 1 : 0);
    break;
  }
  return fitted;
}

/** Header and rows of rendered (possibly styled) cell text, as bordered lines at most `width` wide (cut when the table cannot fit). */
export function drawTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, align: readonly Align[], width: number, tools: TextTools): string {
  const columns = header.length;
  const all = [header, ...rows];
  const natural = Array.from({length: columns}, (_, column) =>
    Math.max(1, ...all.map(row => Math.max(0, ...(row[column] ?? '').split('\n').map(line => tools.width(line))))),
  );
  const widths = fitColumns(natural, width) ?? natural;
  const cell = (text: string, column: number) => tools.wrap(text, widths[column]!);
  const table = new Table({
    head: header.map(cell),
    colWidths: widths.map(each => each + 2),
    colAligns: align.map(each => each ?? 'left'),
  });
  for (const row of rows) table.push(Array.from({length: columns}, (_, column) => cell(row[column] ?? '', column)));
  // Each row cut to the width, so the view never wraps one: only a table with too many columns for
  // readable ones is drawn wider (at its natural widths), and a measure of a wide character that
  // differs from Ink's by a column must not spill a row onto the next line.
  return table
    .toString()
    .split('\n')
    .map(line => tools.cut(line, Math.max(1, width)))
    .join('\n');
}
