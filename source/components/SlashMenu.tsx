import {Box, Text} from 'ink';
import {useTheme} from './theme.js';

/** One completion: a command name and what it does. */
export type SlashItem = {
  readonly name: string;
  /** Shown after the name: `NAME`, `MODE`. */
  readonly args?: string;
  readonly description: string;
};

export type Props = {
  /** Commands matching what was typed, best first. */
  readonly items: readonly SlashItem[];
  /** Index of the highlighted item (Tab or Enter completes it). */
  readonly selected: number;
  /** Rows the menu may use; the rest of the list is cut. */
  readonly maxRows: number;
  /** What each entry is shown after: `/` for commands, `@` for paths. */
  readonly prefix?: string;
};

/** The completion list under the prompt while a `/command` or an `@path` is being typed. */
export function SlashMenu({items, selected, maxRows, prefix = '/'}: Props) {
  const theme = useTheme();
  const start = Math.max(0, Math.min(selected - maxRows + 1, items.length - maxRows));
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {items.slice(start, start + Math.max(1, maxRows)).map((item, index) => {
        const isSelected = start + index === selected;
        return (
          <Text key={item.name} wrap="truncate-end">
            <Text {...(isSelected ? theme.accent : theme.text)} bold={isSelected}>
              {isSelected ? '›' : ' '} {prefix}
              {item.name}
              {item.args ? ` ${item.args}` : ''}
            </Text>
            {item.description ? <Text {...theme.dim}>  {item.description}</Text> : null}
          </Text>
        );
      })}
    </Box>
  );
}
