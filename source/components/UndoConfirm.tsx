import {Box, Text, type Key} from 'ink';
import {useState} from 'react';
import type {WorkspaceChange} from '../agent/session/snapshots.js';
import {toTerminalText} from '../core/terminal-text.js';
import {useYesNo} from '../hooks/use-key-grace.js';
import {textRow} from './text-row.js';
import {useTheme} from './theme.js';

export type Props = {
  /** What the question is about: "Undo turn 3". */
  readonly title: string;
  /** The diff the restore will apply (from the workspace now to the snapshot). */
  readonly changes: readonly WorkspaceChange[];
  /** Files the person changed after the agent's last turn that the restore overwrites. */
  readonly conflicts: readonly string[];
  readonly onAnswer: (yes: boolean) => void;
  readonly rows: number;
  readonly width: number;
  readonly isActive?: boolean;
};

/** /undo's question: the diff it will apply (scrollable), a warning for the person's own edits, y/n. */
export function UndoConfirm({title, changes, conflicts, onAnswer, rows, width, isActive = true}: Props) {
  const theme = useTheme();
  const [top, setTop] = useState(0);
  // File content and names reach the terminal only as text, never as escape sequences.
  const lines = changes.flatMap(change => toTerminalText(change.patch || `${change.status} ${change.path}`).trimEnd().split('\n'));
  const warning = conflicts.length > 0 ? 1 + Math.min(conflicts.length, 3) : 0;
  const height = Math.max(1, rows - 3 - warning);
  const maxTop = Math.max(0, lines.length - height);
  // The question shows once the restore is planned, which takes a moment: keys typed meanwhile
  // must not overwrite files.
  const scroll = (_input: string, key: Key) => {
    const by = key.upArrow ? -1 : key.downArrow ? 1 : key.pageUp ? -height : key.pageDown ? height : 0;
    if (by !== 0) setTop(value => Math.min(maxTop, Math.max(0, value + by)));
    return by !== 0;
  };
  const {isReady} = useYesNo(onAnswer, {isActive, other: scroll});
  const shown = lines.slice(top, top + height);
  const position = lines.length > height ? `lines ${top + 1}–${Math.min(lines.length, top + height)} of ${lines.length} · ↑/↓ scroll` : '';
  const footer = [position, isReady ? 'y restore · n keep' : ''].filter(Boolean).join(' · ');
  return (
    <Box flexDirection="column" width={width}>
      <Text {...theme.bold}>
        {title}: {changes.length} file{changes.length === 1 ? '' : 's'} change
      </Text>
      {shown.map((line, index) => textRow(top + index, line, {wrap: 'truncate-end', ...styleOf(line, theme)}))}
      {conflicts.length > 0 ? (
        <>
          <Text {...theme.warning}>You changed {conflicts.length === 1 ? 'this file' : 'these files'} after the agent's last turn; undo overwrites your edits:</Text>
          {conflicts.slice(0, 3).map(path => (
            <Text key={path} {...theme.warning} wrap="truncate-end">
              {'  '}
              {toTerminalText(path)}
            </Text>
          ))}
        </>
      ) : null}
      {/* The keys show once they count. */}
      <Text {...theme.dim}>{footer || ' '}</Text>
    </Box>
  );
}

function styleOf(line: string, theme: ReturnType<typeof useTheme>) {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff --git') || line.startsWith('index ')) return theme.bold;
  if (line.startsWith('@@')) return theme.hunkHeader;
  if (line.startsWith('+')) return theme.added;
  if (line.startsWith('-')) return theme.removed;
  return theme.text;
}
