import {Box, Text, useInput, type TextProps} from 'ink';
import {useReducer, type ReactNode, type RefObject} from 'react';
import {nextBoundary, previousBoundary} from '../core/graphemes.js';
import {promptWindow, shownText, type PromptRow} from './prompt-rows.js';

/** The text and where the cursor is in it (a UTF-16 index, never inside a character). */
export type Line = {value: string; cursor: number};

export type Props = {
  /** The text (controlled: a change from outside puts the cursor at its end). */
  readonly value: string;
  readonly onChange: (value: string) => void;
  /** Enter, with the text as it is after every key read before it. */
  readonly onSubmit: (value: string) => void;
  readonly focus: boolean;
  readonly placeholder?: string;
  /**
   * The line as of the last key. The caller owns it and writes its own changes here at once
   * (history, completion, clearing after a send), so the next key of the same burst sees them.
   */
  readonly line: RefObject<Line>;
  /** Columns for the text and the mark before each of its rows, and the rows it may take at most. */
  readonly width: number;
  readonly maxRows: number;
  /** The mark before the first line, before each further line, and its style. */
  readonly marks: {first: string; next: string; style: TextProps};
};

/**
 * One editable line (it may hold line breaks) with a drawn cursor. Left/Right, Home/End,
 * Backspace and Delete edit; Ctrl and Alt chords, Up/Down, Tab and Esc are left to the caller.
 * A text wider than the screen is cut into rows here, so the rows it takes are known; one taller
 * than `maxRows` shows the rows around the cursor and says how many are hidden (a pasted file
 * drawn whole would push the screen's live region past its top, and the terminal would keep a
 * copy of it in its history at every key).
 *
 * The text and cursor live in a ref (`line`) that every key updates at once. Ink hands over each key of
 * one stdin read before React renders again (a burst: a held Backspace, a loaded machine, a slow
 * link), so an input that works from its last render's props (ink-text-input does) applies only
 * the last key of the burst: "fix teh" + three Backspaces + "the build" came out "fix tethe build".
 */
export function TextInput({value, onChange, onSubmit, focus, placeholder = '', line, width, maxRows, marks}: Props) {
  const [, redraw] = useReducer((count: number) => count + 1, 0);
  // Replaced from outside (history, completion, the editor, cleared after sending).
  if (value !== line.current.value) line.current = {value, cursor: value.length};

  useInput(
    (input, key) => {
      const {value: text, cursor} = line.current;
      // Alt+Enter too, as a terminal sends it (ESC CR).
      if (key.return) return onSubmit(text);
      if (key.upArrow || key.downArrow || key.tab || key.escape || key.meta || (key.ctrl && input !== '')) return;
      let next = text;
      let at = cursor;
      if (key.leftArrow) at = previousBoundary(text, cursor);
      else if (key.rightArrow) at = nextBoundary(text, cursor);
      else if (key.home) at = 0;
      else if (key.end) at = text.length;
      else if (key.backspace) {
        at = previousBoundary(text, cursor);
        next = text.slice(0, at) + text.slice(cursor);
      } else if (key.delete) next = text.slice(0, cursor) + text.slice(nextBoundary(text, cursor));
      else if (input !== '') {
        next = text.slice(0, cursor) + input + text.slice(cursor);
        at = cursor + input.length;
      }
      if (next === text && at === cursor) return;
      line.current = {value: next, cursor: at};
      if (next !== text) onChange(next);
      redraw();
    },
    {isActive: focus},
  );

  const cursor = focus ? line.current.cursor : -1;
  if (value === '') {
    return (
      <Box>
        <Text {...marks.style}>{marks.first} </Text>
        {focus ? (
          <Text>
            <Text inverse>{placeholder.slice(0, nextBoundary(placeholder, 0)) || ' '}</Text>
            <Text color="gray">{placeholder.slice(nextBoundary(placeholder, 0))}</Text>
          </Text>
        ) : (
          <Text color="gray">{placeholder}</Text>
        )}
      </Box>
    );
  }
  const room = Math.max(2, width - marks.first.length - 1);
  const {rows, above, below} = promptWindow(value, Math.max(0, cursor), room, maxRows);
  const hidden = [above > 0 ? `${above} above` : '', below > 0 ? `${below} below` : ''].filter(Boolean).join(', ');
  return (
    <Box flexDirection="column">
      {hidden ? (
        <Text dimColor wrap="truncate-end">
          {' '.repeat(marks.first.length + 1)}⋯ {hidden} ({rows.length + above + below} rows; ctrl+g edits it in $EDITOR)
        </Text>
      ) : null}
      {rows.map(row => rowOf(value, row, cursor, marks, row.start))}
    </Box>
  );
}

/** One row of the text with its mark, and the cursor if it stands there (-1: nowhere). */
function rowOf(value: string, row: PromptRow, cursor: number, marks: Props['marks'], key: number): ReactNode {
  const mark = row.lineStart ? (row.firstLine ? marks.first : marks.next) : ' '.repeat(marks.first.length);
  const here = cursor >= row.start && (cursor < row.end || (cursor === row.end && (row.end === value.length || value[row.end] === '\n')));
  if (!here) {
    return (
      <Text key={key}>
        <Text {...marks.style}>{mark}</Text> {shownText(value.slice(row.start, row.end))}
      </Text>
    );
  }
  const under = cursor === row.end ? '' : value.slice(cursor, nextBoundary(value, cursor));
  return (
    <Text key={key}>
      <Text {...marks.style}>{mark}</Text> {shownText(value.slice(row.start, cursor))}
      {/* Past the end of the row, the cursor is a space of its own. */}
      <Text inverse>{under === '' ? ' ' : shownText(under)}</Text>
      {shownText(value.slice(cursor + under.length, row.end))}
    </Text>
  );
}
