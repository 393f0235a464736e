import {Box, render, Text} from 'ink';
import {ThemeContext, useTheme, type Theme} from './theme.js';
import {useYesNo} from '../hooks/use-key-grace.js';

export type Props = {
  /** The workspace, as shown to the person. */
  readonly workspace: string;
  /** What trusting turns on: the project's allow rules and hook commands, one per line. */
  readonly items: readonly string[];
  readonly onAnswer: (trusted: boolean) => void;
};

const SHOWN = 12;

/**
 * Asked once per workspace, before the session starts: a cloned repository's settings can allow
 * its own commands and run its own hook scripts, so they count only when the person says so.
 */
export function TrustPrompt({workspace, items, onAnswer}: Props) {
  const theme = useTheme();
  // Keys typed before the question showed (while nib started) must not answer it.
  const {isReady} = useYesNo(onAnswer);
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text {...theme.bold}>Trust this workspace? {workspace}</Text>
      {/* Either of its settings files may be the one asking (settings.local.json holds saved "always" rules). */}
      <Text>Its settings in .nib/ ask for:</Text>
      {items.slice(0, SHOWN).map(item => (
        <Text key={item} wrap="truncate-end">
          {'  '}
          {item}
        </Text>
      ))}
      {items.length > SHOWN ? <Text {...theme.dim}>  … and {items.length - SHOWN} more</Text> : null}
      <Text {...theme.dim}>Its deny and ask rules apply either way. nib remembers your answer for this workspace.</Text>
      {/* The keys show once they count: keys typed before that are ignored. */}
      {isReady ? (
        <Text>
          <Text {...theme.key}>y</Text> trust: its allow rules and hooks count · <Text {...theme.key}>n</Text> do not trust
        </Text>
      ) : (
        <Text> </Text>
      )}
    </Box>
  );
}

/** Shows the question on its own, before the session's screen, and resolves with the answer. */
export async function askTrust(options: {
  workspace: string;
  items: readonly string[];
  theme: Theme;
  renderOptions: Parameters<typeof render>[1];
}): Promise<boolean> {
  let trusted = false;
  const instance = render(
    <ThemeContext value={options.theme}>
      <TrustPrompt
        workspace={options.workspace}
        items={options.items}
        onAnswer={answer => {
          trusted = answer;
          instance.unmount();
        }}
      />
    </ThemeContext>,
    options.renderOptions,
  );
  await instance.waitUntilExit();
  return trusted;
}
