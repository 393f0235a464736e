import {Box} from 'ink';
import {formatSeconds, type LiveTurn as LiveState} from '../state/reducer.js';
import {linesOf, useMarkdown} from './Markdown.js';
import {textRow} from './text-row.js';
import {ToolBadge} from './ToolBadge.js';
import {useMemo} from 'react';
import {useTheme} from './theme.js';

export type Props = {
  readonly live: LiveState;
  /** The current time from the session state (elapsed times). */
  readonly now: number;
  readonly width: number;
  /** Rows this region may use. It never uses more, however long the open block is. */
  readonly maxRows: number;
};

const reasoningRows = 3;
const outputRows = 3;
/**
 * The open block's rows are reserved this many at a time. Ink redraws every line below a line
 * that moved, so a region that grew one row per line of answer rewrote the prompt, status and
 * hints under it each time (about half the bytes nib sent while streaming); now they move once
 * per ROW_STEP rows.
 */
const ROW_STEP = 4;

/**
 * What is still moving: dimmed reasoning, the open block of the answer, the tool calls in flight.
 * Clamped to `maxRows`, because Ink clears the whole screen when its live region outgrows it.
 */
export function LiveTurn({live, now, width, maxRows}: Props) {
  const theme = useTheme();
  const compactRows = live.compacting && maxRows > 0 ? 1 : 0;
  const toolRows = compactRows + live.tools.reduce((rows, tool) => rows + 1 + (tool.status === 'running' ? outputRows : 0), 0);
  const thinkingRows = live.reasoning ? Math.min(reasoningRows, Math.max(0, maxRows - toolRows)) : 0;
  // One row of it is the margin above the open block, the same the transcript gives a finished
  // one: the block's rows are then where they will stay, and move to <Static> without a redraw.
  // On a screen too low for both, the text has the row.
  const margin = maxRows - toolRows - thinkingRows >= 2 ? 1 : 0;
  const textRows = Math.max(0, maxRows - toolRows - thinkingRows - margin);
  const {hasColor} = theme;
  const render = useMarkdown();
  const textLines = useMemo(
    () => tailRendered(live.text, live.scan.fence?.line ?? null, textRows, width, (text, columns) => (render ? render(text, columns, hasColor) : text)),
    [live.text, live.scan.fence, textRows, width, hasColor, render],
  );
  const reserved = textLines.length === 0 ? 0 : Math.min(textRows, Math.ceil(textLines.length / ROW_STEP) * ROW_STEP);
  const thoughtLines = live.reasoning ? wrapTail(live.reasoning.replace(/\s+$/, ''), width - 2, thinkingRows) : [];
  return (
    <Box flexDirection="column" width={width}>
      {thoughtLines.map((line, index) => textRow(`r${index}`, line, {...theme.reasoning, wrap: 'truncate-end'}))}
      {margin > 0 && textLines.length > 0 && <Box height={1} />}
      {textLines.map((line, index) => textRow(`t${index}`, line, {wrap: 'truncate-end'}))}
      {reserved > textLines.length && <Box height={reserved - textLines.length} />}
      {live.tools.map(tool => (
        <ToolBadge key={tool.callId} tool={tool} now={now} width={width} outputLines={outputRows} />
      ))}
      {compactRows > 0 && textRow('compacting', compactingLine(live.compacting!, now), {...theme.dim, wrap: 'truncate-end'})}
    </Box>
  );
}

/** While the model summarises the older turns (it can take a while on a local model). */
function compactingLine(compacting: NonNullable<LiveState['compacting']>, now: number): string {
  const why = compacting.reason === 'overflow' ? 'the server found the context too long' : 'the context is nearly full';
  return `⋯ compacting: ${why}, so the model summarises the older turns · ${formatSeconds(Math.max(0, now - compacting.since))} · esc stops`;
}

/**
 * The last `rows` lines of the open block, rendered. Only the tail is rendered, so a long open
 * code fence costs the same per frame as a short one; the fence's opening line is put back so the
 * tail still highlights as code.
 */
function tailRendered(
  text: string,
  openFence: string | null,
  rows: number,
  width: number,
  render: (text: string, width: number) => string,
): string[] {
  if (rows <= 0 || text.trim() === '') return [];
  const source = text.split('\n');
  const tail = source.length > rows * 2 ? [...(openFence ? [openFence] : []), ...source.slice(-rows * 2)].join('\n') : text;
  const rendered = linesOf(render(tail, width));
  return rendered.slice(-rows);
}

/** Plain text wrapped to `width`, last `rows` rows. */
function wrapTail(text: string, width: number, rows: number): string[] {
  if (rows <= 0) return [];
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') out.push('');
    for (let start = 0; start < line.length; start += Math.max(1, width)) out.push(line.slice(start, start + width));
  }
  return out.slice(-rows);
}
