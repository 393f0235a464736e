import {Box, Text, useInput} from 'ink';
import {useState} from 'react';
import {toTerminalText} from '../core/terminal-text.js';
import {useChoiceGrace, type GraceTiming} from '../hooks/use-key-grace.js';
import {firstVisible} from './layout.js';
import {EmptyList} from './SessionPicker.js';
import {useTheme} from './theme.js';

export type Props = GraceTiming & {
  /** The server's models (GET /models); null when it has no model list. */
  readonly models: readonly string[] | null;
  /** The model in use, marked in the list; empty when none is chosen yet. */
  readonly current: string;
  readonly onPick: (model: string) => void;
  readonly onCancel: () => void;
  /** Rows the list may use (the rest of the screen stays for the transcript). */
  readonly rows: number;
  readonly width: number;
  readonly isActive?: boolean;
};

/** Models whose id contains every typed word, in the server's order. */
export function filterModels(models: readonly string[], query: string): string[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return models.filter(model => words.every(word => model.toLowerCase().includes(word)));
}

/** `/model` without a name: type to filter, ↑/↓ to move, Enter to switch (not one typed ahead: useChoiceGrace), Esc to leave. */
export function ModelPicker({models, current, onPick, onCancel, rows, width, isActive = true, now, graceMs}: Props) {
  const theme = useTheme();
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState(() => Math.max(0, models?.indexOf(current) ?? 0));
  const shown = filterModels(models ?? [], query);
  const at = Math.min(selected, Math.max(0, shown.length - 1));
  const choice = useChoiceGrace({now, graceMs});
  useInput(
    (input, key) => {
      if (key.escape) return onCancel();
      if (key.upArrow) return setSelected(Math.max(0, at - 1));
      if (key.downArrow) return setSelected(Math.min(shown.length - 1, at + 1));
      if (key.return) return shown[at] && choice.decides(1, true) ? onPick(shown[at]) : undefined;
      if (key.backspace || key.delete) {
        setQuery(text => text.slice(0, -1));
        return setSelected(0);
      }
      if (input && !key.ctrl && !key.meta && !key.tab) {
        setQuery(text => text + input);
        setSelected(0);
      }
    },
    {isActive},
  );
  if (models === null || models.length === 0) {
    const text = `${models === null ? 'This server has no model list' : 'This server lists no models'}: switch with /model NAME.`;
    return <EmptyList text={text} width={width} />;
  }
  const visible = Math.max(1, rows - 3);
  const first = firstVisible(at, shown.length, visible);
  return (
    <Box flexDirection="column" width={width}>
      <Text {...theme.bold}>
        Choose a model ({shown.length === models.length ? models.length : `${shown.length} of ${models.length}`})
      </Text>
      <Text wrap="truncate-end">
        <Text {...theme.dim}>filter: </Text>
        {toTerminalText(query)}
        <Text {...theme.dim}>▏</Text>
      </Text>
      {shown.length === 0 ? <Text {...theme.dim}>no model matches</Text> : null}
      {shown.slice(first, first + visible).map((model, offset) => {
        const index = first + offset;
        const isSelected = index === at;
        return (
          <Text key={model} wrap="truncate-end" {...(isSelected ? theme.accent : theme.text)}>
            {isSelected ? '› ' : '  '}
            {/* A model id comes from the server: it reaches the terminal only as text. */}
            {toTerminalText(model)}
            {model === current ? <Text {...theme.dim}> (current)</Text> : null}
          </Text>
        );
      })}
      {choice.notice ? <Text {...theme.warning}>{choice.notice}</Text> : null}
      <Text {...theme.dim}>type to filter · ↑/↓ choose · {choice.isReady ? 'enter switch · ' : ''}esc back</Text>
    </Box>
  );
}
