import {Box, Static, Text} from 'ink';
import {memo} from 'react';
import {formatSeconds, type TranscriptItem} from '../agent/reducer.js';
import {Markdown} from './Markdown.js';
import {ToolBadge} from './ToolBadge.js';
import {useTheme} from './theme.js';

export type Props = {
  /** Finished items, append-only: each is printed once and never redrawn. */
  readonly items: readonly TranscriptItem[];
  /** Changes when the transcript is cleared, so printing starts over. */
  readonly epoch: number;
  readonly width: number;
};

/**
 * Finished items in Ink's <Static>: written to the terminal once, above the live region, where
 * they become ordinary scrollback. Their cost does not grow with the length of the session.
 */
export function Transcript({items, epoch, width}: Props) {
  return (
    <Static key={epoch} items={items as TranscriptItem[]}>
      {item => <TranscriptEntry key={item.id} item={item} width={width} />}
    </Static>
  );
}

export type EntryProps = {
  readonly item: TranscriptItem;
  readonly width: number;
};

/** One finished item. */
export const TranscriptEntry = memo(function TranscriptEntry({item, width}: EntryProps) {
  const theme = useTheme();
  switch (item.kind) {
    case 'user':
      return (
        <Box marginTop={1} width={width}>
          <Text {...theme.user}>› </Text>
          <Text>{item.text}</Text>
        </Box>
      );
    case 'assistant':
      return (
        <Box marginTop={1} width={width}>
          <Markdown text={item.text} width={width} />
        </Box>
      );
    case 'reasoning':
      return (
        <Box marginTop={1}>
          <Text {...theme.reasoning}>✻ {item.durationMs === null ? 'thought' : `thought for ${formatSeconds(item.durationMs)}`}</Text>
        </Box>
      );
    case 'tool':
      return <ToolBadge tool={item.tool} now={item.tool.endedAt ?? 0} width={width} outputLines={0} />;
    case 'notice':
      return (
        <Box width={width}>
          <Text {...theme.dim}>{item.text}</Text>
        </Box>
      );
    case 'error':
      return (
        <Box width={width}>
          <Text {...theme.error}>✗ {item.text}</Text>
        </Box>
      );
  }
});
