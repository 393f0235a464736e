import {Box, Text} from 'ink';
import {formatSeconds, type ToolView} from '../state/reducer.js';
import {textWidth, truncate} from './columns.js';
import {useTheme, type Style, type Theme} from './theme.js';

export type Props = {
  readonly tool: ToolView;
  /** The current time (from the session state), for the elapsed time of a running call. */
  readonly now: number;
  /** Columns available: the badge and each output line stay on one row. */
  readonly width: number;
  /** Lines of streamed output to show under a running call (bash). */
  readonly outputLines?: number;
};

const spinner = ['◐', '◓', '◑', '◒'];

/**
 * One line per tool call: icon, name, key argument, status, one-line result. A running call shows
 * its last few output lines under it.
 */
export function ToolBadge({tool, now, width, outputLines = 3}: Props) {
  const theme = useTheme();
  const {icon, iconStyle, status, statusStyle} = describe(tool, now, theme);
  const tail = tool.status === 'running' && outputLines > 0 ? lastLines(tool.output, outputLines) : [];
  // A long command gives way to its status: the exit code and time are what the line is for.
  const after = `${status ? ` · ${status}` : ''}${tool.edited ? ' · edited by you' : ''}`;
  const keyArg = truncate(tool.keyArg, Math.max(12, width - 3 - displayName(tool.name).length - textWidth(after)));
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text {...iconStyle}>{icon}</Text> <Text {...theme.toolName}>{displayName(tool.name)}</Text>
        {keyArg ? <Text> {keyArg}</Text> : null}
        {status ? <Text {...statusStyle}> · {status}</Text> : null}
        {tool.edited ? <Text {...theme.warning}> · edited by you</Text> : null}
      </Text>
      {tail.map((line, index) => (
        <Text key={index} {...theme.dim} wrap="truncate-end">
          {'  │ '}
          {line}
        </Text>
      ))}
    </Box>
  );
}

function describe(tool: ToolView, now: number, theme: Theme): {icon: string; iconStyle: Style; status: string; statusStyle: Style} {
  switch (tool.status) {
    case 'pending':
      return {icon: '○', iconStyle: theme.dim, status: '', statusStyle: theme.dim};
    case 'waiting-approval':
      return {icon: '?', iconStyle: theme.warning, status: 'waiting for approval', statusStyle: theme.warning};
    case 'running': {
      const elapsed = tool.startedAt !== undefined && now > tool.startedAt ? now - tool.startedAt : 0;
      return {
        icon: spinner[Math.floor(elapsed / 1000) % spinner.length]!,
        iconStyle: theme.accent,
        status: `running ${formatSeconds(elapsed)}`,
        statusStyle: theme.dim,
      };
    }
    case 'done':
      return {icon: '✓', iconStyle: theme.success, status: tool.summary ?? 'done', statusStyle: theme.dim};
    case 'failed':
      return {icon: '✗', iconStyle: theme.error, status: tool.summary ?? 'failed', statusStyle: theme.error};
    case 'denied':
      return {icon: '⊘', iconStyle: theme.warning, status: tool.summary ?? 'denied', statusStyle: theme.warning};
  }
}

/** `mcp__github__list_issues` reads as `github › list_issues`: the server, then its tool. */
function displayName(name: string): string {
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  return mcp ? `${mcp[1]} › ${mcp[2]}` : name;
}

function lastLines(output: string, count: number): string[] {
  // The reducer has already let each lone CR overwrite its line; one left at the end waits.
  const lines = output.replace(/\r/g, '').replace(/\n+$/, '').split('\n');
  return output.trim() === '' ? [] : lines.slice(-count);
}
