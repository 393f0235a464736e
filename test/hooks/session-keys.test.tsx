import {Text, useInput} from 'ink';
import {useState} from 'react';
import {render} from 'ink-testing-library';
import {expect, test} from 'vitest';
import {useSessionKeys, type SessionKeyOptions} from '../../source/hooks/use-session-keys.js';
import {keys, typist} from '../components/helpers.js';
import {waitFor} from '../support/wait-for.js';

function Harness(props: Partial<SessionKeyOptions> & {onRewind: () => void}) {
  useSessionKeys({isBusy: false, isInputEmpty: true, isActive: true, onInterrupt: () => {}, onClearInput: () => {}, onExit: () => {}, onCycleMode: () => {}, ...props});
  return <Text>keys</Text>;
}

function setup(props: Partial<SessionKeyOptions> = {}) {
  let rewinds = 0;
  let interrupts = 0;
  const app = render(<Harness onRewind={() => rewinds++} onInterrupt={() => interrupts++} {...props} />);
  return {type: typist(app.stdin), rewinds: () => rewinds, interrupts: () => interrupts};
}

test('Esc twice on an empty, idle prompt asks for the rewind list', async () => {
  const {type, rewinds} = setup();
  await type(keys.escape, keys.escape);
  await waitFor(() => expect(rewinds()).toBe(1));
  // Two presses read together arrive as one Esc with meta set.
  await type(keys.escape + keys.escape);
  await waitFor(() => expect(rewinds()).toBe(2));
});

test('Esc twice while busy interrupts instead; with text typed it does nothing', async () => {
  const busy = setup({isBusy: true});
  await busy.type(keys.escape, keys.escape);
  await waitFor(() => expect(busy.interrupts()).toBeGreaterThan(0));
  expect(busy.rewinds()).toBe(0);
  const typing = setup({isInputEmpty: false});
  await typing.type(keys.escape, keys.escape, 'x');
  await new Promise(resolve => setTimeout(resolve, 100));
  expect(typing.rewinds()).toBe(0);
});

test('two presses far apart are two single presses: no rewind', async () => {
  const {type, rewinds} = setup({escapeWindowMs: 30});
  await type(keys.escape);
  await new Promise(resolve => setTimeout(resolve, 80));
  await type(keys.escape);
  await new Promise(resolve => setTimeout(resolve, 100));
  expect(rewinds()).toBe(0);
});

/** A prompt that keeps what is typed, so the keys see whether the input is empty. */
function Typing({onExit}: {onExit: () => void}) {
  const [text, setText] = useState('');
  const {isExitArmed} = useSessionKeys({isBusy: false, isInputEmpty: text === '', isActive: true, onInterrupt: () => {}, onClearInput: () => setText(''), onExit, onCycleMode: () => {}, exitWindowMs: 60_000});
  useInput((input, key) => {
    if (!key.ctrl && !key.meta && input) setText(value => value + input);
  });
  return <Text>{`[${text}]${isExitArmed ? ' armed' : ''}`}</Text>;
}

test('a Ctrl+C after typing again clears the new text instead of exiting; only an empty prompt exits', async () => {
  let exits = 0;
  const app = render(<Typing onExit={() => exits++} />);
  const type = typist(app.stdin);
  await type('first');
  await type(keys.ctrlC);
  await waitFor(() => expect(app.lastFrame()).toBe('[] armed'));
  await type('important second prompt');
  // Typing disarmed the exit: the hint is gone.
  await waitFor(() => expect(app.lastFrame()).toBe('[important second prompt]'));
  await type(keys.ctrlC);
  await waitFor(() => expect(app.lastFrame()).toBe('[] armed'));
  expect(exits).toBe(0);
  await type(keys.ctrlC);
  await waitFor(() => expect(exits).toBe(1));
});
