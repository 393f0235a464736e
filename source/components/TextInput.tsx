import {Text, useInput} from 'ink';
import {useReducer, type RefObject} from 'react';

/** The text and where the cursor is in it (a UTF-16 index, never inside a surrogate pair). */
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
};

/**
 * One editable line (it may hold line breaks) with a drawn cursor. Left/Right, Home/End,
 * Backspace and Delete edit; Ctrl and Alt chords, Up/Down, Tab and Esc are left to the caller.
 *
 * The text and cursor live in a ref (`line`) that every key updates at once. Ink hands over each key of
 * one stdin read before React renders again (a burst: a held Backspace, a loaded machine, a slow
 * link), so an input that works from its last render's props (ink-text-input does) applies only
 * the last key of the burst: "fix teh" + three Backspaces + "the build" came out "fix tethe build".
 */
export function TextInput({value, onChange, onSubmit, focus, placeholder = '', line}: Props) {
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

  const {cursor} = line.current;
  if (!focus) return <Text>{value === '' ? <Text color="gray">{placeholder}</Text> : value}</Text>;
  if (value === '') {
    return (
      <Text>
        <Text inverse>{placeholder.slice(0, nextBoundary(placeholder, 0)) || ' '}</Text>
        <Text color="gray">{placeholder.slice(nextBoundary(placeholder, 0))}</Text>
      </Text>
    );
  }
  const under = value.slice(cursor, nextBoundary(value, cursor));
  return (
    <Text>
      {value.slice(0, cursor)}
      {/* On a line break or past the end, the cursor is a space of its own. */}
      <Text inverse>{under === '' || under === '\n' ? ' ' : under}</Text>
      {under === '\n' ? '\n' : ''}
      {value.slice(cursor + under.length)}
    </Text>
  );
}

/** Where the character before `index` starts: a surrogate pair (an emoji) is one character. */
function previousBoundary(text: string, index: number): number {
  if (index <= 0) return 0;
  const low = text.charCodeAt(index - 1);
  const high = text.charCodeAt(index - 2);
  return low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? index - 2 : index - 1;
}

function nextBoundary(text: string, index: number): number {
  if (index >= text.length) return text.length;
  return (text.codePointAt(index) ?? 0) > 0xffff ? index + 2 : index + 1;
}
