import {render} from 'ink-testing-library';
import {useState} from 'react';
import {expect, test} from 'vitest';
import {lineMove} from '../../source/components/prompt-rows.js';
import {PromptInput, slashMatches} from '../../source/components/PromptInput.js';
import type {SlashItem} from '../../source/components/SlashMenu.js';
import {keys, plain} from './helpers.js';
import {waitFor} from '../support/wait-for.js';

const commands: SlashItem[] = [
  {name: 'help', description: 'commands and keys'},
  {name: 'clear', description: 'fresh conversation'},
  {name: 'model', args: 'NAME', description: 'switch the model'},
  {name: 'mode', args: 'MODE', description: 'approval mode'},
];

const paths = ['README.md', 'source/', 'source/app.tsx', 'source/components/PromptInput.tsx', 'my notes.md'];
const mentionSearch = (query: string) => paths.filter(path => path.toLowerCase().includes(query.toLowerCase()));

function Harness({history = [], onSubmit, onEdit}: {history?: string[]; onSubmit: (text: string) => void; onEdit?: () => void}) {
  const [value, setValue] = useState('');
  return (
    <PromptInput
      value={value}
      onChange={setValue}
      onSubmit={text => {
        setValue('');
        onSubmit(text);
      }}
      history={history}
      commands={commands}
      mentionSearch={mentionSearch}
      isActive
      width={80}
      maxRows={10}
      {...(onEdit ? {onEditInEditor: onEdit} : {})}
    />
  );
}

const setup = (props: Partial<Parameters<typeof Harness>[0]> = {}) => {
  const sent: string[] = [];
  const app = render(<Harness onSubmit={text => sent.push(text)} {...props} />);
  // Key listeners attach in an effect after the first frame.
  const type = async (...inputs: string[]) => {
    for (const input of inputs) {
      app.stdin.write(input);
      await new Promise(resolve => setImmediate(resolve));
    }
  };
  return {...app, sent, type};
};

test('Enter sends the text', async () => {
  const {type, sent, lastFrame} = setup();
  await type('hello', keys.enter);
  await waitFor(() => expect(sent).toEqual(['hello']));
  expect(plain(lastFrame())).toBe('›');
});

test('Ctrl+J and a trailing backslash add lines instead of sending', async () => {
  const {type, sent, lastFrame} = setup();
  await type('one', keys.ctrlJ, 'two\\', keys.enter, 'three');
  await waitFor(() => expect(plain(lastFrame())).toBe('› one\n┊ two\n┊ three'));
  expect(sent).toEqual([]);
  await type(keys.enter);
  await waitFor(() => expect(sent).toEqual(['one\ntwo\nthree']));
});

test('Enter on an empty prompt sends nothing', async () => {
  const {type, sent} = setup();
  await type(keys.enter, '  ', keys.enter);
  expect(sent).toEqual([]);
});

test('Up and Down walk the history and come back to the draft', async () => {
  const {type, lastFrame, sent} = setup({history: ['first', 'second']});
  await type('dra');
  await type(keys.up);
  await waitFor(() => expect(plain(lastFrame())).toContain('second'));
  await type(keys.up);
  await waitFor(() => expect(plain(lastFrame())).toContain('first'));
  await type(keys.up);
  expect(plain(lastFrame())).toContain('first');
  await type(keys.down, keys.down);
  await waitFor(() => expect(plain(lastFrame())).toContain('dra'));
  await type(keys.up, keys.enter);
  await waitFor(() => expect(sent).toEqual(['second']));
});

test('a held Up, read as one burst, steps once per press', async () => {
  const {type, lastFrame} = setup({history: ['first', 'second', 'third']});
  await type(keys.up + keys.up + keys.up);
  await waitFor(() => expect(plain(lastFrame())).toBe('› first'));
  await type(keys.down + keys.down);
  await waitFor(() => expect(plain(lastFrame())).toBe('› third'));
});

test('typing / lists the commands; Tab completes the highlighted one', async () => {
  const {type, lastFrame} = setup();
  await type('/');
  await waitFor(() => expect(plain(lastFrame())).toContain('/help  commands and keys'));
  await type('mo');
  await waitFor(() => expect(plain(lastFrame())).not.toContain('/help'));
  expect(plain(lastFrame())).toContain('› /model NAME  switch the model');
  await type(keys.down);
  await waitFor(() => expect(plain(lastFrame())).toContain('› /mode MODE'));
  await type(keys.tab);
  await waitFor(() => expect(plain(lastFrame()).split('\n')[0]).toBe('› /mode'));
});

test('Enter on a command without arguments runs it; with arguments it completes first', async () => {
  const {type, sent, lastFrame} = setup();
  await type('/cl', keys.enter);
  await waitFor(() => expect(sent).toEqual(['/clear']));
  await type('/mod', keys.enter);
  await waitFor(() => expect(plain(lastFrame()).split('\n')[0]).toBe('› /model'));
  // The completion left "/model " (with its space) for the argument.
  await type('gpt-x', keys.enter);
  await waitFor(() => expect(sent).toEqual(['/clear', '/model gpt-x']));
});

test('Ctrl chords do not type their letter; Ctrl+G asks for the editor', async () => {
  let edits = 0;
  const {type, lastFrame} = setup({onEdit: () => edits++});
  await type('ab', keys.ctrlD, '\u0007', 'c');
  await waitFor(() => expect(plain(lastFrame())).toBe('› abc'));
  expect(edits).toBe(1);
});

test('slashMatches: only while the command name is typed', () => {
  expect(slashMatches('/m', commands).map(command => command.name)).toEqual(['model', 'mode']);
  expect(slashMatches('/model x', commands)).toEqual([]);
  expect(slashMatches('hello', commands)).toEqual([]);
  // A command file named Upper.md runs as /Upper or /upper: the menu finds it either way.
  const upper = [{name: 'Upper', description: 'x'}];
  expect(slashMatches('/up', upper)).toEqual(upper);
  expect(slashMatches('/Up', upper)).toEqual(upper);
});

test('a pasted block (its line breaks arrive as CR, in one read) keeps them as lines and is not sent', async () => {
  const {type, sent, lastFrame} = setup();
  await new Promise(resolve => setTimeout(resolve, 60)); // the key listener attaches after the first frame
  await type('first line\rsecond line\rthird');
  await waitFor(() => expect(plain(lastFrame())).toContain('second line'));
  expect(plain(lastFrame())).not.toContain('first linesecond');
  expect(sent).toEqual([]);
  await type(keys.enter);
  await waitFor(() => expect(sent).toEqual(['first line\nsecond line\nthird']));
});

test('text and Enter read together (fast typing on a loaded machine) are sent, not kept as a line break', async () => {
  const {type, sent, lastFrame} = setup();
  await new Promise(resolve => setTimeout(resolve, 60)); // the key listener attaches after the first frame
  await type('/clear\r');
  await waitFor(() => expect(sent).toEqual(['/clear']));
  expect(plain(lastFrame())).toBe('›');
});

test('a bracketed paste keeps its line breaks and is not sent; Enter then sends it', async () => {
  const {type, sent, lastFrame} = setup();
  await new Promise(resolve => setTimeout(resolve, 60));
  await type('note: ', '\u001B[200~alpha\rbeta\r\u001B[201~');
  await waitFor(() => expect(plain(lastFrame())).toBe('› note: alpha\n┊ beta\n┊'));
  expect(sent).toEqual([]);
  await type('gamma', keys.enter);
  await waitFor(() => expect(sent).toEqual(['note: alpha\nbeta\ngamma']));
});

test('a paste goes in at the cursor, which then stands after it', async () => {
  const {type, sent, lastFrame} = setup();
  await new Promise(resolve => setTimeout(resolve, 60));
  await type('hello world', keys.left, keys.left, keys.left, keys.left, keys.left);
  await type('\u001B[200~PASTED \u001B[201~');
  await type('!', keys.enter);
  await waitFor(() => expect(sent).toEqual(['hello PASTED !world']), () => JSON.stringify(sent));
  expect(plain(lastFrame())).toBe('›');
});

test('@ lists workspace paths; Tab or Enter puts the chosen one in, a folder keeps the list open', async () => {
  const {type, sent, lastFrame} = setup();
  await type('explain @');
  await waitFor(() => expect(plain(lastFrame())).toContain('› @README.md'));
  await type('prom');
  await waitFor(() => expect(plain(lastFrame())).not.toContain('@README.md'));
  expect(plain(lastFrame())).toContain('› @source/components/PromptInput.tsx');
  await type(keys.tab);
  await waitFor(() => expect(plain(lastFrame())).toBe('› explain @source/components/PromptInput.tsx'));
  await type('and @sou', keys.down, keys.enter);
  await waitFor(() => expect(plain(lastFrame()).split('\n')[0]).toBe('› explain @source/components/PromptInput.tsx and @source/app.tsx'));
  await type('@notes', keys.enter);
  await waitFor(() => expect(plain(lastFrame()).split('\n')[0]).toContain('@source/app.tsx @"my notes.md"'));
  expect(sent).toEqual([]);
  await type(keys.enter);
  await waitFor(() => expect(sent).toEqual(['explain @source/components/PromptInput.tsx and @source/app.tsx @"my notes.md" ']));
});

test('Esc closes the @ list and keeps the text; Enter then sends it as typed', async () => {
  const {type, sent, lastFrame} = setup();
  await type('look at @READ');
  await waitFor(() => expect(plain(lastFrame())).toContain('› @README.md'));
  await type(keys.escape);
  await waitFor(() => expect(plain(lastFrame())).toBe('› look at @READ'));
  await type('X');
  await waitFor(() => expect(plain(lastFrame())).toBe('› look at @READX'));
  await type(keys.enter);
  await waitFor(() => expect(sent).toEqual(['look at @READX']));
  // The next mention opens the list again.
  await type('@sour');
  await waitFor(() => expect(plain(lastFrame())).toContain('› @source/'));
});

test('keys that arrive in one read each count: a burst of Backspaces, then text', async () => {
  const {type, lastFrame, sent} = setup();
  await type('fix teh');
  await waitFor(() => expect(plain(lastFrame())).toBe('› fix teh'));
  // A loaded machine or a slow link delivers several keys in one read.
  await type('\u007F\u007F\u007F');
  await type('the build\u007F\u007Fld', keys.enter);
  await waitFor(() => expect(sent).toEqual(['fix the build']));
  // Enter read together with the keys before it sends what they made.
  await type('second tryx\u007F\r');
  await waitFor(() => expect(sent).toEqual(['fix the build', 'second try']));
});

test('keys read together with an Enter or a history step see its change', async () => {
  const {type, lastFrame, sent} = setup({history: ['old prompt']});
  await type('one');
  await type('\r\u007F');
  await waitFor(() => expect(sent).toEqual(['one']));
  expect(plain(lastFrame())).toBe('›');
  await type('two\r\u007Fx');
  await waitFor(() => expect(plain(lastFrame())).toBe('› x'));
  expect(sent).toEqual(['one', 'two']);
  await type('\u007F', 'dr');
  await type(`${keys.up}!`);
  await waitFor(() => expect(plain(lastFrame())).toBe('› old prompt!'));
  await type(keys.enter);
  await type(`ab${keys.up}`);
  await waitFor(() => expect(plain(lastFrame())).toBe('› old prompt'));
  await type(keys.down);
  await waitFor(() => expect(plain(lastFrame())).toBe('› ab'));
});

test('Alt+Enter sends, as Enter does', async () => {
  const {type, sent} = setup();
  await type('hi', '\u001B\r');
  await waitFor(() => expect(sent).toEqual(['hi']));
});

test('in a prompt of several lines, ↑/↓ move between its lines; on the first line ↑ walks history', async () => {
  const {type, sent} = setup({history: ['an old prompt']});
  await type('one', keys.ctrlJ, 'two', keys.ctrlJ, 'three');
  // From the end of "three" (column 5) up to "two", which is shorter: its end.
  await type(keys.up, 'X');
  await type(keys.up, 'Y');
  await type(keys.down, keys.down, 'Z', keys.enter);
  await waitFor(() => expect(sent).toEqual(['oneY\ntwoX\nthreZe']));
  await type('a', keys.ctrlJ, 'b', keys.up, keys.up, keys.enter);
  await waitFor(() => expect(sent).toEqual(['oneY\ntwoX\nthreZe', 'an old prompt']));
});

test('lineMove keeps the column, stops at a shorter line\'s end, and never splits a character', () => {
  expect(lineMove('abc\nde', 6, -1)).toBe(2);
  expect(lineMove('abc\nde', 1, 1)).toBe(5);
  expect(lineMove('abc\nde', 3, 1)).toBe(6);
  expect(lineMove('abc\nde', 2, -1)).toBeNull();
  expect(lineMove('abc\nde', 5, 1)).toBeNull();
  expect(lineMove('\n\nx', 3, -1)).toBe(1);
  expect(lineMove('\n\nx', 1, -1)).toBe(0);
  // "😀" is two UTF-16 units: column 1 lands after it, not inside it.
  expect(lineMove('😀b\nc', 5, -1)).toBe(2);
});
