import {Box, Text} from 'ink';
import {useMemo} from 'react';
import {fold} from './CommandView.js';
import {clean} from './diff-lines.js';
import {useTheme} from './theme.js';

export type Props = {
  /** What is called: `server · tool`. */
  readonly title: string;
  /** The arguments as formatted JSON, exactly as they will be sent. */
  readonly json: string;
  /** Screen rows the view may take; longer arguments are cut with a "more lines" note. */
  readonly height: number;
  readonly width: number;
};

/** An MCP call for approval: the tool, then every argument the model chose. */
export function JsonView({title, json, height, width}: Props) {
  const theme = useTheme();
  // Folded, never cut at the edge, and control characters shown as dots: the arguments come from
  // the model and go to a program the person may not have written.
  const lines = useMemo(() => json.split('\n').map(clean).flatMap(line => fold(line, Math.max(8, width - 2))), [json, width]);
  const room = Math.max(1, height - 1);
  const shown = lines.length > room ? lines.slice(0, room - 1) : lines;
  return (
    <Box flexDirection="column" width={width}>
      <Text {...theme.toolName} wrap="truncate-end">
        {title}
      </Text>
      {shown.map((line, index) => (
        <Text key={index} wrap="truncate-end">
          {'  '}
          {line}
        </Text>
      ))}
      {shown.length < lines.length ? <Text {...theme.dim}>  … {lines.length - shown.length} more lines</Text> : null}
    </Box>
  );
}
