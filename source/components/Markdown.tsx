import {stripVTControlCharacters} from 'node:util';
import {Box, Text} from 'ink';
import {Marked} from 'marked';
import {markedTerminal} from 'marked-terminal';
import {memo, useMemo} from 'react';
import {useTheme} from './theme.js';

export type Props = {
  /** Markdown source: one finished block, or the open block of a streaming answer. */
  readonly text: string;
  /** Columns available; paragraphs reflow to it. */
  readonly width: number;
};

/**
 * Renders markdown with marked-terminal (headings, lists, emphasis, code spans, links, tables)
 * and cli-highlight for fenced code. Memoized on its props: a finished block renders once.
 */
export const Markdown = memo(function Markdown({text, width}: Props) {
  const {hasColor} = useTheme();
  const lines = useMemo(() => renderMarkdown(text, width, hasColor).split('\n'), [text, width, hasColor]);
  // A table row wrapped onto two lines is unreadable; cut it at the edge instead. Prose is
  // already reflowed to the width, and code wraps, so no character of it is lost.
  return (
    <Box flexDirection="column" width={width}>
      {lines.map((line, index) => (
        <Text key={index} wrap={isTableLine(line) ? 'truncate-end' : 'wrap'}>
          {line}
        </Text>
      ))}
    </Box>
  );
});

/** Markdown to terminal text. Pure apart from marked-terminal's chalk colour detection. */
export function renderMarkdown(text: string, width: number, hasColor: boolean): string {
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
    },
  });
  let output: string;
  try {
    output = marked.parse(text, {async: false}) as string;
  } catch {
    // A half-streamed block can trip the renderer (an unfinished table); the raw text is still
    // readable, and the next delta will render properly.
    output = text;
  }
  const trimmed = output.replace(/\s+$/, '');
  return hasColor ? trimmed : stripVTControlCharacters(trimmed);
}

const tableBorder = /^(?:\u001B\[[\d;]*m)*[┌├└│]/;

/** A line drawn by the table renderer (it starts with a box-drawing border). */
export function isTableLine(line: string): boolean {
  return tableBorder.test(line);
}
