import {Box, Text, useInput} from 'ink';
import {useMemo, useState} from 'react';
import type {FileChange} from '../state/hunks.js';
import {truncate} from './columns.js';
import {layoutDiff, type ScreenLine} from './diff-lines.js';
import {useTheme, type Theme} from './theme.js';

export type Props = {
  /** The header's first words, e.g. `edit source/app.ts` (the preview title). */
  readonly title: string;
  /** The change to show, from `computeChange`. */
  readonly change: FileChange;
  /** Show only this hunk (hunk-by-hunk review); all hunks when absent. */
  readonly hunk?: number;
  /** Screen rows the whole view may take, header and scroll marker included. */
  readonly height: number;
  /** Screen columns available. */
  readonly width: number;
  /** Whether ↑/↓/PgUp/PgDn/Home/End scroll this view. Off in the transcript. */
  readonly isActive?: boolean;
};

/**
 * A colored unified diff that never takes more than `height` rows: what does not fit scrolls,
 * with a "lines N–M of T" marker. Lines are wrapped to `width` here, not by Ink, so the
 * window always holds exactly the rows it counts.
 */
export function DiffView({title, change, hunk, height, width, isActive = false}: Props) {
  const theme = useTheme();
  const lines = useMemo(() => layoutDiff(change, width, hunk), [change, width, hunk]);
  const shown = hunk === undefined ? change : change.hunks[hunk] ?? change;
  const fits = lines.length <= height - 1;
  const bodyHeight = Math.max(1, fits ? lines.length : height - 2);
  const maxOffset = Math.max(0, lines.length - bodyHeight);
  const [wantedOffset, setOffset] = useState(0);
  const offset = Math.min(wantedOffset, maxOffset);

  useInput(
    (_input, key) => {
      const step = key.upArrow ? -1 : key.downArrow ? 1 : key.pageUp ? -bodyHeight : key.pageDown ? bodyHeight : 0;
      if (step !== 0) setOffset(Math.max(0, Math.min(maxOffset, offset + step)));
      else if (key.home) setOffset(0);
      else if (key.end) setOffset(maxOffset);
    },
    {isActive: isActive && !fits},
  );

  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text {...theme.toolName}>{truncate(title, Math.max(4, width - 14))}</Text>
        {'  '}
        <Text {...theme.added}>+{shown.added}</Text> <Text {...theme.removed}>−{shown.removed}</Text>
      </Text>
      {lines.length === 0 ? <Text {...theme.dim}>no changes</Text> : null}
      {lines.slice(offset, offset + bodyHeight).map((line, index) => (
        <DiffLine key={offset + index} line={line} theme={theme} />
      ))}
      {fits ? null : (
        <Text {...theme.dim} wrap="truncate-end">
          {/* In the transcript nothing scrolls: say what is left out instead of offering keys. */}
          {isActive
            ? `rows ${offset + 1}–${offset + bodyHeight} of ${lines.length} · ↑↓ PgUp PgDn`
            : `… ${lines.length - bodyHeight} more rows (/diff shows them all)`}
        </Text>
      )}
    </Box>
  );
}

function DiffLine({line, theme}: {readonly line: ScreenLine; readonly theme: Theme}) {
  if (line.kind === 'hunk') {
    return (
      <Text {...theme.hunkHeader} wrap="truncate-end">
        {line.text}
      </Text>
    );
  }
  const style = line.type === 'added' ? theme.added : line.type === 'removed' ? theme.removed : theme.text;
  const wordStyle = line.type === 'added' ? theme.addedWord : theme.removedWord;
  return (
    <Text wrap="truncate-end">
      <Text {...theme.gutter}>{line.gutter}</Text>
      <Text {...style}>{line.marker}</Text>
      {line.segments.map((segment, index) => (
        <Text key={index} {...(segment.changed ? wordStyle : style)}>
          {segment.text}
        </Text>
      ))}
    </Text>
  );
}
