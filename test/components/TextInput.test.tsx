import {render} from 'ink-testing-library';
import {useRef, useState} from 'react';
import {expect, test} from 'vitest';
import {TextInput, type Line} from '../../source/components/TextInput.js';
import {waitFor} from '../support/wait-for.js';
import {plain, typist} from './helpers.js';

const left = '\u001B[D';
const right = '\u001B[C';
const home = '\u001B[H';
const end = '\u001B[F';
const del = '\u001B[3~';

const marks = {first: '›', next: '┊', style: {}};

function Harness({initial = '', sent, width = 80, maxRows = 10}: {initial?: string; sent: string[]; width?: number; maxRows?: number}) {
  const [value, setValue] = useState(initial);
  const line = useRef<Line>({value: initial, cursor: initial.length});
  return (
    <>
      <TextInput value={value} onChange={setValue} onSubmit={text => sent.push(text)} focus placeholder="type here" line={line} width={width} maxRows={maxRows} marks={marks} />
      {/* A change from outside, as history or the editor make. */}
      <Outside onReplace={setValue} />
    </>
  );
}

let replace: (value: string) => void = () => {};
function Outside({onReplace}: {onReplace: (value: string) => void}) {
  replace = onReplace;
  return null;
}

function setup(initial = '', size: {width?: number; maxRows?: number} = {}) {
  const sent: string[] = [];
  const app = render(<Harness initial={initial} sent={sent} {...size} />);
  return {...app, sent, type: typist(app.stdin)};
}

test('the cursor moves with Left, Right, Home and End; text goes in where it is', async () => {
  const {type, sent} = setup();
  await type('wrld');
  await type(left, left, left, 'o', end, '!', home, 'hello ');
  await type('\r');
  await waitFor(() => expect(sent).toEqual(['hello world!']));
});

test('Backspace deletes before the cursor, Delete after it; an emoji goes whole', async () => {
  const {type, sent} = setup();
  await type('ab🙂c');
  await type(left, '\u007F');
  await type(home, del);
  await type('\r');
  await waitFor(() => expect(sent).toEqual(['bc']));
});

test('a key burst is applied key by key', async () => {
  const {type, sent} = setup('draft');
  await type(`${left}${left}\u007F\u007FX${end}\u007F!`, '\r');
  await waitFor(() => expect(sent).toEqual(['dXf!']));
});

test('Ctrl and Alt chords type nothing', async () => {
  const {type, sent} = setup();
  await type('a', '\u0004', '\u001Bx', 'b', '\r');
  await waitFor(() => expect(sent).toEqual(['ab']));
});

test('a value replaced from outside puts the cursor at its end', async () => {
  const {type, sent, lastFrame} = setup('first');
  await type(home);
  replace('from history');
  await waitFor(() => expect(plain(lastFrame())).toBe('› from history'));
  await type('!', '\r');
  await waitFor(() => expect(sent).toEqual(['from history!']));
});

test('the cursor steps over a character of several code points whole: a skin tone, a family, an accent', async () => {
  const {type, sent} = setup();
  await type('x👍🏽y', left, left, 'Z', end, ' a👨‍👩‍👧b', left, left, 'X', end, ' e\u0301', '\u007F', '\r');
  await waitFor(() => expect(sent).toEqual(['xZ👍🏽y aX👨‍👩‍👧b ']));
});

test('a prompt taller than its rows shows the rows around the cursor and says how many are hidden', async () => {
  const pasted = Array.from({length: 60}, (_, index) => `pasted line ${index + 1}`).join('\n');
  const {type, lastFrame, sent} = setup(pasted, {maxRows: 8});
  const frame = () => plain(lastFrame()).split('\n');
  await waitFor(() => expect(frame()).toHaveLength(8));
  expect(frame()[0]).toContain('⋯ 53 above (60 rows; ctrl+g edits it in $EDITOR)');
  expect(frame().at(-1)).toBe('┊ pasted line 60');
  expect(frame()[1]).toBe('┊ pasted line 54');
  await type(home);
  await waitFor(() => expect(frame()[0]).toContain('⋯ 53 below'));
  expect(frame()[1]).toBe('› pasted line 1');
  expect(frame()).toHaveLength(8);
  await type('!', '\r');
  await waitFor(() => expect(sent).toEqual([`!${pasted}`]));
});

test('a prompt of one line more than its rows is shown as a window too', async () => {
  const {lastFrame} = setup(Array.from({length: 6}, (_, index) => `l${index}`).join('\n'), {maxRows: 5});
  await waitFor(() => expect(plain(lastFrame()).split('\n')).toHaveLength(5));
  expect(plain(lastFrame())).toContain('⋯ 2 above (6 rows');
});

test('a line wider than the input is cut into rows that fit, and a very long one scrolls too', async () => {
  const {lastFrame} = setup('a'.repeat(100), {width: 40});
  const frame = () => plain(lastFrame()).split('\n');
  // 37 columns of text a row (40, less the mark, its space and the cursor's column).
  await waitFor(() => expect(frame()).toEqual(['› ' + 'a'.repeat(37), '  ' + 'a'.repeat(37), '  ' + 'a'.repeat(26)]));
  const long = setup('b'.repeat(6000), {width: 40, maxRows: 5});
  await waitFor(() => expect(plain(long.lastFrame()).split('\n')).toHaveLength(5));
  expect(plain(long.lastFrame())).toContain('⋯ 159 above (163 rows');
});
