import {Box, Text, useInput} from 'ink';
import {useState} from 'react';
import {toTerminalText} from '../core/terminal-text.js';
import {useChoiceGrace, type GraceTiming} from '../hooks/use-key-grace.js';
import {useKeyState} from '../hooks/use-key-state.js';
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

export type Props = GraceTiming & {
  /** Oldest first; the newest is highlighted first. */
  readonly items: readonly RewindItem[];
  readonly onPick: (item: RewindItem, scope: RewindScope) => void;
  readonly onCancel: () => void;
  readonly rows: number;
  readonly width: number;
  readonly isActive?: boolean;
};

/** /rewind (and Esc twice): pick an earlier prompt, then what to take back to just before it. */
export function RewindPicker({items, onPick, onCancel, rows, width, isActive = true, now, graceMs}: Props) {
  const theme = useTheme();
  const [selected, setSelected] = useState(items.length - 1);
  const [chosen, setChosen] = useState<RewindItem | null>(null);
  useInput(
    (_input, key) => {
      if (key.escape) return onCancel();
      if (key.upArrow) return setSelected(index => Math.max(0, index - 1));
      if (key.downArrow) return setSelected(index => Math.min(items.length - 1, index + 1));
      if (key.return && items[selected]) setChosen(items[selected]);
    },
    {isActive: isActive && chosen === null},
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
    return <ScopeStep chosen={chosen} onPick={onPick} onBack={() => setChosen(null)} width={width} isActive={isActive} now={now} graceMs={graceMs} />;
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

/**
 * What to take back, and the key that does it. Files can be rewritten here, so keys typed ahead
 * (a second Enter after the one that picked the prompt) and keys in the short wait after it is
 * drawn rewind nothing, as at every question that changes files (useChoiceGrace).
 */
function ScopeStep({chosen, onPick, onBack, width, isActive, now, graceMs}: GraceTiming & {
  chosen: RewindItem;
  onPick: Props['onPick'];
  onBack: () => void;
  width: number;
  isActive: boolean;
}) {
  const theme = useTheme();
  const scopes = chosen.files ? SCOPES : SCOPES.filter(entry => entry.scope === 'conversation');
  // A ref too: a digit and the Enter after it can arrive in one read, before React renders again.
  const [chosenScope, scope, setScope] = useKeyState(0);
  const grace = useChoiceGrace({now, graceMs});
  useInput(
    (input, key) => {
      if (key.escape) return onBack();
      if (key.upArrow) return setScope(Math.max(0, chosenScope.current - 1));
      if (key.downArrow) return setScope(Math.min(scopes.length - 1, chosenScope.current + 1));
      // A digit moves the choice, as the arrows do; only Enter rewinds (a digit that acted at once
      // left the prompt it put back to the next Enter, which sent it again).
      const digit = Number(input);
      if (input.length === 1 && Number.isInteger(digit) && digit >= 1 && digit <= scopes.length) return setScope(digit - 1);
      // Any other key restarts the wait, even once keys count: someone typing a line (a prompt
      // they think is back in the box) rewinds nothing with the Enter that ends it.
      if (grace.decides(Math.max(1, [...input].length), key.return)) onPick(chosen, scopes[chosenScope.current]!.scope);
    },
    {isActive},
  );
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
      {grace.notice ? <Text {...theme.warning}>{grace.notice}</Text> : null}
      <Text {...theme.dim}>{grace.isReady ? `↑/↓ or 1–${scopes.length} choose · enter rewind · esc back` : '↑/↓ choose · esc back'}</Text>
    </Box>
  );
}

/** A prompt on one line, and only as text: it may hold anything that was pasted. */
function oneLine(prompt: string): string {
  return toTerminalText(prompt.replace(/\s+/g, ' ').trim());
}
