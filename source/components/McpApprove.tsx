import {Box, Text} from 'ink';
import {toTerminalText} from '../core/terminal-text.js';
import {useYesNo} from '../hooks/use-key-grace.js';
import {useTheme} from './theme.js';

export type Props = {
  /** Each waiting project server: its name and what it runs (command line or URL). */
  readonly servers: ReadonlyArray<{name: string; runs: string}>;
  /** y: start them and remember it for this workspace; n or esc: not now. */
  readonly onAnswer: (yes: boolean) => void;
  readonly width: number;
  readonly isActive?: boolean;
};

/** Asks once per workspace whether the project's .mcp.json servers may start. */
export function McpApprove({servers, onAnswer, width, isActive = true}: Props) {
  const theme = useTheme();
  // It shows right after the first frame, while a person may still be typing into the prompt:
  // keys typed before it was ready must not start the repository's code.
  const {isReady} = useYesNo(onAnswer, {isActive});
  return (
    <Box flexDirection="column" width={width}>
      <Text {...theme.bold}>This workspace's .mcp.json wants to start MCP servers. They run code from this repository:</Text>
      {servers.map(server => (
        // Wrapped, never cut: the person approves the whole command. What a cloned repository
        // wrote reaches the terminal only as text.
        <Text key={server.name}>
          {'  '}
          <Text {...theme.toolName}>{toTerminalText(server.name)}</Text> {toTerminalText(server.runs)}
        </Text>
      ))}
      <Text {...theme.accent}>Start them?</Text>
      {/* The keys show once they count, on a line of their own that is there from the start. */}
      <Text {...theme.dim}>{isReady ? 'y yes, remembered for this workspace · n not now (/mcp approve later)' : ' '}</Text>
    </Box>
  );
}
