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

function Harness({initial = '', sent}: {initial?: string; sent: string[]}) {
  const [value, setValue] = useState(initial);
  const line = useRef<Line>({value: initial, cursor: initial.length});
  return (
    <>
      <TextInput value={value} onChange={setValue} onSubmit={text => sent.push(text)} focus placeholder="type here" line={line} />
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

function setup(initial = '') {
  const sent: string[] = [];
  const app = render(<Harness initial={initial} sent={sent} />);
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
  await waitFor(() => expect(plain(lastFrame())).toBe('from history'));
  await type('!', '\r');
  await waitFor(() => expect(sent).toEqual(['from history!']));
});
