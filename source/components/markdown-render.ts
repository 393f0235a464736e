/**
 * Markdown to terminal text with marked-terminal (and cli-highlight for code). This module and its
 * libraries are about three quarters of the interactive bundle, so the app loads it with import()
 * after the first frame (see MarkdownLoader in Markdown.tsx).
 */
import {stripVTControlCharacters} from 'node:util';
import {Marked, type Token, type Tokens} from 'marked';
import {markedTerminal} from 'marked-terminal';
import {drawTable, type TextTools} from './markdown-table.js';

/**
 * A renderer that keeps one configured parser per width: the open block of a streaming answer is
 * rendered up to 30 times a second, and building marked-terminal's renderer each time showed up
 * in the CPU profile.
 */
export function createMarkdownRenderer(tools: TextTools): (text: string, width: number, hasColor: boolean) => string {
  const parsers = new Map<number, Marked>();
  return (text, width, hasColor) => {
    let marked = parsers.get(width);
    if (!marked) {
      marked = createMarked(width, tools);
      parsers.set(width, marked);
    }
    return renderWith(marked, text, hasColor);
  };
}

function createMarked(width: number, tools: TextTools): Marked {
  const marked = new Marked(
    // marked-terminal's types lag behind marked 15's extension shape; the runtime object is one.
    markedTerminal({width: Math.max(20, width), reflowText: true, showSectionPrefix: false, tab: 2, emoji: false}) as never,
  );
  // marked-terminal prints the text of a tight list item raw (`**Read**` stays starred); marked's
  // own rule is to render such a text token's inline children, so do that and defer otherwise.
  marked.use({
    renderer: {
      text(token) {
        return 'tokens' in token && token.tokens ? this.parser.parseInline(token.tokens) : false;
      },
      // marked links a bare e-mail address to `mailto:` it, and marked-terminal prints a link
      // whose text is not its address as `text (address)`: the address came out twice.
      link(token) {
        if (token.href === `mailto:${token.text}`) token.href = token.text;
        return false;
      },
      // marked-terminal draws a table at its natural width, and a row wider than the terminal was
      // cut at the edge: its cells now wrap inside columns that fit.
      table(token) {
        const inline = (cell: Tokens.TableCell) => unescapeEntities(this.parser.parseInline(cell.tokens));
        return `${drawTable(token.header.map(inline), token.rows.map(row => row.map(inline)), token.align, width - (tableIndent.get(token) ?? 0), tools)}\n\n`;
      },
    },
  });
  return marked;
}

/** What marked escapes in cell text, as marked-terminal turns it back before drawing a table. */
function unescapeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'"})[name] ?? _);
}

/**
 * How far marked-terminal will indent each table (a list item's text by its marker and three
 * columns a level, a quote's by two), so that the table is fitted to what is left of the width.
 */
const tableIndent = new WeakMap<object, number>();

function markTableIndents(tokens: readonly Token[], indent: number): void {
  for (const token of tokens) {
    if (token.type === 'table') tableIndent.set(token, indent);
    else if (token.type === 'list') {
      // Two columns, the marker (`*`, or the widest number and its dot) and a space.
      const list = token as Tokens.List;
      const marker = list.ordered ? String((Number(list.start) || 1) + list.items.length - 1).length + 1 : 1;
      for (const item of list.items) markTableIndents(item.tokens, indent + 3 + marker);
    } else if (token.type === 'blockquote') markTableIndents((token as Tokens.Blockquote).tokens, indent + 2);
  }
}

function renderWith(marked: Marked, text: string, hasColor: boolean): string {
  let output: string;
  try {
    const tokens = marked.lexer(text);
    markTableIndents(tokens, 0);
    output = marked.parser(tokens);
  } catch {
    // A half-streamed block can trip the renderer (an unfinished table); the raw text is still
    // readable, and the next delta will render properly.
    output = text;
  }
  const trimmed = output.replace(/\s+$/, '');
  return hasColor ? trimmed : stripVTControlCharacters(trimmed);
}
