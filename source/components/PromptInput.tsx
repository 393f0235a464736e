import {Box, Text, useInput, usePaste} from 'ink';
import {memo, useEffect, useMemo, useReducer, useRef, useState} from 'react';
import {mentionText, typingMention} from '../core/mentions.js';
import {SlashMenu, type SlashItem} from './SlashMenu.js';
import {TextInput, type Line} from './TextInput.js';
import {lineMove} from './prompt-rows.js';
import {useKeyState} from '../hooks/use-key-state.js';
import {useTheme} from './theme.js';

export type Props = {
  /** The text being typed (controlled: the caller clears it, or fills it from $EDITOR). */
  readonly value: string;
  readonly onChange: (value: string) => void;
  /** Enter on a finished prompt; the text is never empty. */
  readonly onSubmit: (text: string) => void;
  /** Earlier prompts, oldest first: Up and Down walk them. */
  readonly history: readonly string[];
  /** Slash commands offered while a `/command` is typed. */
  readonly commands: readonly SlashItem[];
  /** False while something else owns the keyboard (an approval prompt). */
  readonly isActive: boolean;
  /** Ctrl+G: edit the prompt in $EDITOR. */
  readonly onEditInEditor?: () => void;
  readonly placeholder?: string;
  /** Rows the completion list may use. */
  readonly menuRows?: number;
  /** The screen's columns, and the rows the prompt may take (a taller one scrolls with the cursor). */
  readonly width: number;
  readonly maxRows: number;
  /** Workspace paths matching what follows an `@`, best first (absent: no `@` completion). */
  readonly mentionSearch?: (query: string) => readonly string[];
  /** Told which completion list is open, when that changes (the status bar's key hints). */
  readonly onList?: (list: CompletionList | null) => void;
};

export type CompletionList = 'commands' | 'paths';

/**
 * The prompt line (TextInput). Enter sends; Ctrl+J or a trailing `\` adds a line; Up/Down
 * walk the history; typing `/` opens a completion list of commands, and `@` one of workspace paths
 * (Up/Down choose, Tab or Enter complete, Esc closes the list and keeps the text).
 * Memoized: the caller's callbacks are stable, so a streaming answer's frames leave it alone.
 */
export const PromptInput = memo(function PromptInput({value, onChange, onSubmit, history, commands, isActive, onEditInEditor, placeholder, menuRows = slashMenuRows, mentionSearch, onList, width, maxRows}: Props) {
  const theme = useTheme();
  // Position in `history` while walking it, and the unsent draft to come back to. A ref too: a held
  // Up delivers several presses in one read, before React renders again, and each must step.
  const [walking, , setWalk] = useKeyState<{index: number; draft: string} | null>(null);
  const [selected, setSelected] = useState(0);
  // A cursor move between lines changes only `line`, which the input draws from.
  const [, redraw] = useReducer((count: number) => count + 1, 0);
  // Where a list was closed with Esc (the start of the `@` mention, or 0 for the `/` command): it
  // stays closed while that one is typed, not for the next.
  const [dismissed, setDismissed] = useState<number | null>(null);
  const typing = mentionSearch ? typingMention(value) : null;
  const mentionQuery = typing && typing.start !== dismissed ? typing.path : null;
  const paths = useMemo(() => (mentionQuery === null ? [] : mentionSearch!(mentionQuery)), [mentionQuery, mentionSearch]);
  const mentionItems = useMemo(() => paths.map((path): SlashItem => ({name: path, description: ''})), [paths]);
  const slashItems = dismissed === 0 ? [] : slashMatches(value, commands);
  const isMention = slashItems.length === 0 && mentionItems.length > 0;
  const matches = isMention ? mentionItems : slashItems;
  const isMenuOpen = matches.length > 0;
  const list = isMenuOpen && isActive ? (isMention ? 'paths' : 'commands') : null;
  useEffect(() => onList?.(list), [list, onList]);
  const choice = matches[Math.min(selected, matches.length - 1)];
  /** The prompt with the `@` being typed replaced by the chosen path (a folder stays open for more). */
  const withMention = (path: string) => `${value.slice(0, typing!.start)}${mentionText(path)}${path.endsWith('/') ? '' : ' '}`;

  // The prompt as of the last key. The input and this component's own changes write it at once,
  // so the keys of one read (a burst) each see what the ones before them did.
  const line = useRef<Line>({value, cursor: value.length});
  /** The prompt set from outside the input (history, completion): the cursor goes to its end. */
  const setLine = (next: string) => {
    line.current = {value: next, cursor: next.length};
    return next;
  };

  /** What the person typed into the input. */
  const fromInput = (next: string) => {
    // Ink does not split a CR from the text read with it. A paste arrives through usePaste below
    // (bracketed paste), so a lone trailing CR here is Enter typed before the app read the keys
    // (fast typing, a loaded machine): send. Several CRs are a paste from a terminal without
    // bracketed paste: keep them as line breaks rather than sending the first line.
    const lines = next.split(/\r\n?/);
    if (lines.length === 2 && lines[1] === '') {
      change(setLine(lines[0]!));
      submit(lines[0]!);
      return;
    }
    const text = lines.join('\n');
    if (text === next) change(text);
    else change(setLine(text));
  };

  // Bracketed paste: a pasted block lands in the prompt whole, line breaks included, never sent.
  usePaste(
    pasted => {
      // At the cursor, which then stands after the pasted text.
      const {value: text, cursor} = line.current;
      const insert = pasted.replace(/\r\n?/g, '\n');
      line.current = {value: text.slice(0, cursor) + insert + text.slice(cursor), cursor: cursor + insert.length};
      change(line.current.value);
    },
    {isActive},
  );

  const change = (next: string) => {
    if (!typingMention(next) && !/^\/\S*$/.test(next)) setDismissed(null);
    setSelected(0);
    setWalk(null);
    onChange(next);
  };

  const submit = (text: string) => {
    if (isMention && choice) return change(setLine(withMention(choice.name)));
    if (isMenuOpen && choice && text !== `/${choice.name}` && !text.startsWith(`/${choice.name} `)) {
      if (choice.args) return change(setLine(`/${choice.name} `));
      return send(`/${choice.name}`);
    }
    if (text.endsWith('\\')) return change(setLine(`${text.slice(0, -1)}\n`));
    if (text.trim() === '') return;
    send(text);
  };

  const send = (text: string) => {
    setDismissed(null);
    setWalk(null);
    setSelected(0);
    // The caller clears the prompt once it has the text; keys after the Enter start from empty.
    setLine('');
    onSubmit(text);
  };

  useInput(
    (input, key) => {
      if (key.ctrl && input === 'g') return onEditInEditor?.();
      if (isMenuOpen && (key.upArrow || key.downArrow)) {
        setSelected(index => (index + (key.upArrow ? matches.length - 1 : 1)) % matches.length);
        return;
      }
      if (isMenuOpen && key.escape) return setDismissed(isMention ? typing!.start : 0);
      if (isMention && key.tab && choice) return change(setLine(withMention(choice.name)));
      if (isMenuOpen && key.tab && choice) return change(setLine(`/${choice.name}${choice.args ? ' ' : ''}`));
      // In a prompt of several lines, ↑/↓ move between its lines first.
      if (key.upArrow || key.downArrow) {
        const moved = lineMove(line.current.value, line.current.cursor, key.upArrow ? -1 : 1);
        if (moved !== null) {
          line.current = {value: line.current.value, cursor: moved};
          return redraw();
        }
      }
      if (key.upArrow && history.length > 0) {
        const walk = walking.current;
        const index = walk === null ? history.length - 1 : Math.max(0, walk.index - 1);
        setWalk({index, draft: walk?.draft ?? line.current.value});
        onChange(setLine(history[index]!));
      } else if (key.downArrow && walking.current !== null) {
        const walk = walking.current;
        const index = walk.index + 1;
        if (index >= history.length) {
          setWalk(null);
          onChange(setLine(walk.draft));
        } else {
          setWalk({index, draft: walk.draft});
          onChange(setLine(history[index]!));
        }
      }
    },
    {isActive},
  );

  return (
    <Box flexDirection="column">
      <TextInput
        value={value}
        onChange={fromInput}
        onSubmit={submit}
        focus={isActive}
        placeholder={placeholder ?? ''}
        line={line}
        width={width}
        maxRows={maxRows}
        marks={{first: '›', next: '┊', style: theme.accent}}
      />
      {list ? (
        <SlashMenu items={matches} selected={Math.min(selected, matches.length - 1)} maxRows={menuRows} prefix={isMention ? '@' : '/'} />
      ) : null}
    </Box>
  );
});

/** Rows the completion list takes at most (the screen's row budget counts them too). */
export const slashMenuRows = 6;

/** Commands whose name starts with what follows the `/` (while no argument is being typed). */
export function slashMatches(value: string, commands: readonly SlashItem[]): SlashItem[] {
  if (!value.startsWith('/') || /\s/.test(value)) return [];
  const typed = value.slice(1).toLowerCase();
  return commands.filter(command => command.name.toLowerCase().startsWith(typed));
}
