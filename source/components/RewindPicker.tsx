import {Box, Text, useInput} from 'ink';
import {useState} from 'react';
import {toTerminalText} from '../core/terminal-text.js';
import {useTheme} from './theme.js';
import type {RewindScope} from '../agent/session/agent-session.js';

/** An earlier prompt the session can go back to (just before it was sent). */
export type RewindItem = {
  readonly turn: number;
  /** The prompt as the person typed it. */
  readonly prompt: string;
  /** The files can be restored too (a snapshot was taken before that turn). */
  readonly files: boolean;
};


const SCOPES: ReadonlyArray<{scope: RewindScope; label: string}> = [
  {scope: 'both', label: 'conversation and files'},
  {scope: 'conversation', label: 'conversation only (files stay as they are)'},
  {scope: 'files', label: 'files only (the conversation goes on)'},
];

export type Props = {
  /** Oldest first; the newest is highlighted first. */
  readonly items: readonly RewindItem[];
  readonly onPick: (item: RewindItem, scope: RewindScope) => void;
  readonly onCancel: () => void;
  readonly rows: number;
  readonly width: number;
  readonly isActive?: boolean;
};

/** /rewind (and Esc twice): pick an earlier prompt, then what to take back to just before it. */
export function RewindPicker({items, onPick, onCancel, rows, width, isActive = true}: Props) {
  const theme = useTheme();
  const [selected, setSelected] = useState(items.length - 1);
  const [chosen, setChosen] = useState<RewindItem | null>(null);
  const [scope, setScope] = useState(0);
  const scopes = chosen?.files ? SCOPES : SCOPES.filter(entry => entry.scope === 'conversation');
  useInput(
    (input, key) => {
      if (chosen) {
        if (key.escape) return setChosen(null);
        if (key.upArrow) return setScope(index => Math.max(0, index - 1));
        if (key.downArrow) return setScope(index => Math.min(scopes.length - 1, index + 1));
        const digit = Number(input);
        if (Number.isInteger(digit) && digit >= 1 && digit <= scopes.length) return onPick(chosen, scopes[digit - 1]!.scope);
        if (key.return) return onPick(chosen, scopes[scope]!.scope);
        return;
      }
      if (key.escape) return onCancel();
      if (key.upArrow) return setSelected(index => Math.max(0, index - 1));
      if (key.downArrow) return setSelected(index => Math.min(items.length - 1, index + 1));
      if (key.return && items[selected]) {
        setScope(0);
        setChosen(items[selected]);
      }
    },
    {isActive},
  );
  if (items.length === 0) {
    return (
      <Box flexDirection="column" width={width}>
        <Text>No earlier prompt to rewind to.</Text>
        <Text {...theme.dim}>esc back</Text>
      </Box>
    );
  }
  if (chosen) {
    return (
      <Box flexDirection="column" width={width}>
        <Text {...theme.bold} wrap="truncate-end">
          Rewind to just before turn {chosen.turn}: {oneLine(chosen.prompt)}
        </Text>
        {scopes.map((entry, index) => (
          <Text key={entry.scope} {...(index === scope ? theme.accent : theme.text)}>
            {index === scope ? '› ' : '  '}
            {index + 1}. {entry.label}
          </Text>
        ))}
        {chosen.files ? null : <Text {...theme.dim}>No snapshot before that turn, so its files cannot be restored.</Text>}
        <Text {...theme.dim}>↑/↓ or 1–{scopes.length} choose · enter rewind · esc back</Text>
      </Box>
    );
  }
  const visible = Math.max(1, rows - 2);
  const first = Math.min(Math.max(0, selected - visible + 1), Math.max(0, items.length - visible));
  return (
    <Box flexDirection="column" width={width}>
      <Text {...theme.bold}>Rewind to before which prompt?</Text>
      {items.slice(first, first + visible).map((item, offset) => {
        const isSelected = first + offset === selected;
        return (
          <Text key={item.turn} wrap="truncate-end" {...(isSelected ? theme.accent : theme.text)}>
            {isSelected ? '› ' : '  '}
            {String(item.turn).padStart(3)}  {oneLine(item.prompt)}
          </Text>
        );
      })}
      <Text {...theme.dim}>↑/↓ choose · enter pick · esc cancel</Text>
    </Box>
  );
}

/** A prompt on one line, and only as text: it may hold anything that was pasted. */
function oneLine(prompt: string): string {
  return toTerminalText(prompt.replace(/\s+/g, ' ').trim());
}
