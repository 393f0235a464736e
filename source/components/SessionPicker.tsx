import {Box, Text, useInput} from 'ink';
import {useState} from 'react';
import type {SessionSummary} from '../agent/session/saved.js';
import {toTerminalText} from '../core/terminal-text.js';
import {useChoiceGrace, type GraceTiming} from '../hooks/use-key-grace.js';
import {firstVisible} from './layout.js';
import {useTheme} from './theme.js';

export type Props = GraceTiming & {
  /** Newest first, as listSessions() returns them. */
  readonly sessions: readonly SessionSummary[];
  /** Called with the chosen session (Enter). */
  readonly onPick: (session: SessionSummary) => void;
  /** Esc: no session chosen. */
  readonly onCancel: () => void;
  /** What Esc leads to, for its hint: a new session at start (`nib --resume`), back from `/resume`. */
  readonly cancelLabel?: string;
  /** Rows the list may use (the rest of the screen stays for the transcript). */
  readonly rows: number;
  readonly width: number;
  readonly isActive?: boolean;
};

/**
 * `nib --resume` and `/resume`: one line per session, ↑/↓ to move, Enter to open, Esc to leave. An
 * Enter typed ahead (a second one after `/resume`'s) opens nothing: it would swap the session for
 * the top one unseen (useChoiceGrace).
 */
export function SessionPicker({sessions, onPick, onCancel, cancelLabel = 'new session', rows, width, isActive = true, now, graceMs}: Props) {
  const theme = useTheme();
  const [selected, setSelected] = useState(0);
  const choice = useChoiceGrace({now, graceMs});
  useInput(
    (input, key) => {
      if (key.escape) return onCancel();
      if (key.upArrow || input === 'k') return setSelected(index => Math.max(0, index - 1));
      if (key.downArrow || input === 'j') return setSelected(index => Math.min(sessions.length - 1, index + 1));
      if (key.return && sessions[selected] && choice.decides(1, true)) return onPick(sessions[selected]);
    },
    {isActive},
  );
  if (sessions.length === 0) {
    return <EmptyList text="No sessions in this workspace yet." width={width} />;
  }
  const visible = Math.max(1, rows - 2);
  const first = firstVisible(selected, sessions.length, visible);
  return (
    <Box flexDirection="column" width={width}>
      <Text {...theme.bold}>Resume a session ({sessions.length})</Text>
      {sessions.slice(first, first + visible).map((session, offset) => {
        const index = first + offset;
        const isSelected = index === selected;
        return (
          <Text key={session.id} wrap="truncate-end" {...(isSelected ? theme.accent : theme.text)}>
            {isSelected ? '› ' : '  '}
            {describe(session)}
          </Text>
        );
      })}
      {choice.notice ? <Text {...theme.warning}>{choice.notice}</Text> : null}
      <Text {...theme.dim}>↑/↓ choose · {choice.isReady ? 'enter resume · ' : ''}esc {cancelLabel}</Text>
    </Box>
  );
}

/** A picker with nothing to pick: what is missing, and the way back. */
export function EmptyList({text, width}: {readonly text: string; readonly width: number}) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" width={width}>
      <Text>{text}</Text>
      <Text {...theme.dim}>esc back</Text>
    </Box>
  );
}

function describe(session: SessionSummary): string {
  const when = new Date(session.updated).toISOString().slice(0, 16).replace('T', ' ');
  const turns = `${session.turns} turn${session.turns === 1 ? '' : 's'}`;
  // Read back from a log file: whatever it holds reaches the terminal only as text.
  return toTerminalText(`${when}  ${turns.padEnd(9)} ${session.model ? `${session.model}  ` : ''}${session.firstPrompt || '(no prompt)'}`);
}
