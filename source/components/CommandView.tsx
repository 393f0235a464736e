import {Box, Text} from 'ink';
import {useEffect, useMemo, useState} from 'react';
import {clean} from './diff-lines.js';
import {useTheme} from './theme.js';

export type Props = {
  /** The shell command as it will run. */
  readonly command: string;
  /** Where it runs. */
  readonly cwd: string;
  /** Screen rows the view may take; longer commands are cut with a "more lines" note. */
  readonly height: number;
  readonly width: number;
};

/** A shell command for approval: highlighted as bash, with its working directory. */
export function CommandView({command, cwd, height, width}: Props) {
  const theme = useTheme();
  // Long lines are folded, never cut at the edge: what hides past the edge of a command
  // (`ls <150 spaces>; curl … | sh`) would run on `y`.
  const lines = useMemo(
    () => command.replace(/\n+$/, '').split('\n').map(clean).flatMap(line => fold(line, Math.max(8, width - 2))),
    [command, width],
  );
  const room = Math.max(1, height - 1);
  const shown = lines.length > room ? lines.slice(0, room - 1) : lines;
  return (
    <Box flexDirection="column" width={width}>
      {shown.map((line, index) => (
        <Text key={index} wrap="truncate-end">
          <Text {...theme.dim}>{index === 0 ? '$ ' : '  '}</Text>
          {theme.hasColor ? <Highlighted line={line} /> : <Text {...theme.command}>{line}</Text>}
        </Text>
      ))}
      {shown.length < lines.length ? <Text {...theme.dim}>  … {lines.length - shown.length} more lines (e opens all)</Text> : null}
      <Text {...theme.dim} wrap="truncate-start">
        in {cwd}
      </Text>
    </Box>
  );
}

export function fold(line: string, size: number): string[] {
  const chars = [...line];
  if (chars.length <= size) return [line];
  const parts: string[] = [];
  for (let start = 0; start < chars.length; start += size) parts.push(chars.slice(start, start + size).join(''));
  return parts;
}

/**
 * cli-highlight brings highlight.js (~1.2 MB) with it: imported here at the top, it was on the
 * path to the first frame. Loaded on first use instead (the first command to approve, or the
 * first code block drawn, evaluates it); until then the line shows plain.
 */
function Highlighted({line}: {readonly line: string}) {
  const theme = useTheme();
  const [colored, setColored] = useState<{line: string; text: string | undefined} | null>(null);
  useEffect(() => {
    let isCurrent = true;
    import('./highlight.js').then(
      ({highlight}) => {
        let text: string | undefined;
        try {
          text = highlight(line, {language: 'bash', ignoreIllegals: true});
        } catch {
          // cli-highlight throws on grammars it cannot load; the plain command is still correct.
          text = undefined;
        }
        if (isCurrent) setColored({line, text});
      },
      () => {},
    );
    return () => {
      isCurrent = false;
    };
  }, [line]);
  const text = colored?.line === line ? colored.text : undefined;
  return text === undefined ? <Text {...theme.command}>{line}</Text> : <Text bold>{text}</Text>;
}
