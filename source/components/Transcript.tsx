import {Box, Static, Text} from 'ink';
import {memo} from 'react';
import {formatSeconds, type TranscriptItem} from '../state/reducer.js';
import {computeChange} from '../state/hunks.js';
import type {ToolView} from '../state/reducer.js';
import {DiffView} from './DiffView.js';
import {Markdown, useMarkdown, useMarkdownWhen} from './Markdown.js';
import {ToolBadge} from './ToolBadge.js';
import {useTheme} from './theme.js';

export type Props = {
  /** Finished items, append-only: each is printed once and never redrawn. */
  readonly items: readonly TranscriptItem[];
  /** Changes when the transcript is cleared, so printing starts over. */
  readonly epoch: number;
  /** Changes with each /redraw (screen and scrollback cleared): everything is printed again. */
  readonly layout?: number;
  readonly width: number;
};

/**
 * Finished items in Ink's <Static>: written to the terminal once, above the live region, where
 * they become ordinary scrollback. Their cost does not grow with the length of the session.
 * Memoized: Ink treats any update of the <Static> box as new static output and draws a frame at
 * once, bypassing its frame throttle; re-rendered with every App render, every streamed delta
 * cost an unthrottled frame.
 */
export const Transcript = memo(function Transcript({items, epoch, layout = 0, width}: Props) {
  // Printed is printed: an answer that reached <Static> before the markdown renderer loaded would
  // stay raw markdown in the scrollback, so answers wait for it (it loads in well under a second).
  const isReady = useMarkdown() !== null;
  useMarkdownWhen(items.length > 0);
  const held = isReady ? -1 : items.findIndex(item => item.kind === 'assistant');
  return (
    <Static key={`${epoch}:${layout}`} items={(held === -1 ? items : items.slice(0, held)) as TranscriptItem[]}>
      {item => <TranscriptEntry key={item.id} item={item} width={width} />}
    </Static>
  );
});

type EntryProps = {
  readonly item: TranscriptItem;
  readonly width: number;
};

/** One finished item. */
const TranscriptEntry = memo(function TranscriptEntry({item, width}: EntryProps) {
  const theme = useTheme();
  switch (item.kind) {
    case 'user':
      return (
        <Box marginTop={1} width={width}>
          {/* Its own column: a long prompt that wraps would squeeze the space out of the mark. */}
          <Box flexShrink={0} marginRight={1}>
            <Text {...theme.user}>›</Text>
          </Box>
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
      return (
        <Box flexDirection="column" width={width}>
          <ToolBadge tool={item.tool} now={item.tool.endedAt ?? 0} width={width} outputLines={0} />
          {showsDiff(item.tool) ? <RanDiff tool={item.tool} width={width} /> : null}
        </Box>
      );
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

const diffRows = 16;

/**
 * A write the person did not see before it ran (auto-edit, yolo, "always") or changed in their
 * editor: the transcript shows the diff of what was actually written.
 */
function showsDiff(tool: ToolView): boolean {
  return tool.status === 'done' && tool.detail?.file !== undefined && (tool.edited === true || tool.wasAsked !== true);
}

function RanDiff({tool, width}: {readonly tool: ToolView; readonly width: number}) {
  const file = tool.detail!.file!;
  const change = computeChange(file.oldText, file.newText);
  return (
    <Box paddingLeft={2}>
      <DiffView title={`${tool.name} ${file.path}`} change={change} height={diffRows} width={Math.max(20, width - 2)} />
    </Box>
  );
}
