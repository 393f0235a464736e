import {render} from 'ink-testing-library';
import {expect, test} from 'vitest';
import {RewindPicker, type RewindItem} from '../../source/components/RewindPicker.js';
import type {RewindScope} from '../../source/agent/session/agent-session.js';
import {keys, plain, typist} from './helpers.js';
import {waitFor} from '../support/wait-for.js';

const items: RewindItem[] = [
  {turn: 1, prompt: 'add a parser', files: true},
  {turn: 2, prompt: 'now test it\nthoroughly', files: true},
  {turn: 3, prompt: 'explain the plan', files: false},
];

/** Without a clock the typed-ahead grace is off; the grace test passes one it moves by hand. */
function setup(clock?: {time: number}) {
  const picked: Array<[number, RewindScope]> = [];
  let cancelled = 0;
  const timing = clock ? {now: () => clock.time} : {graceMs: 0};
  const app = render(<RewindPicker items={items} onPick={(item, scope) => picked.push([item.turn, scope])} onCancel={() => cancelled++} rows={10} width={80} {...timing} />);
  return {...app, picked, type: typist(app.stdin), cancelled: () => cancelled};
}

test('lists the prompts newest highlighted, one line each; then offers the three choices', async () => {
  const {lastFrame, type, picked} = setup();
  expect(plain(lastFrame())).toContain('›   3  explain the plan');
  expect(plain(lastFrame())).toContain('    2  now test it thoroughly');
  await type(keys.up, keys.enter);
  await waitFor(() => expect(plain(lastFrame())).toContain('Rewind to just before turn 2: now test it thoroughly'));
  expect(plain(lastFrame())).toContain('› 1. conversation and files');
  expect(plain(lastFrame())).toContain('2. conversation only');
  expect(plain(lastFrame())).toContain('3. files only');
  await type(keys.down, keys.enter);
  await waitFor(() => expect(picked).toEqual([[2, 'conversation']]));
});

test('a digit moves the choice and Enter picks it (a digit alone rewinds nothing); Esc goes back a step, then cancels', async () => {
  const {lastFrame, type, picked, cancelled} = setup();
  await type(keys.up, keys.up, keys.enter);
  await waitFor(() => expect(plain(lastFrame())).toContain('before turn 1'));
  await type(keys.escape);
  await waitFor(() => expect(plain(lastFrame())).toContain('Rewind to before which prompt?'));
  await type(keys.enter, '3');
  await waitFor(() => expect(plain(lastFrame())).toContain('› 3. files only'));
  expect(picked).toEqual([]);
  await type(keys.enter);
  await waitFor(() => expect(picked).toEqual([[1, 'files']]));
  await type(keys.escape);
  await waitFor(() => expect(plain(lastFrame())).toContain('Rewind to before which prompt?'));
  await type(keys.escape);
  await waitFor(() => expect(cancelled()).toBe(1));
});

test('a digit and the Enter after it, read before a render (a fast typist, a loaded machine): the Enter takes the digit\'s choice', async () => {
  const {lastFrame, type, picked, stdin} = setup();
  await type(keys.up, keys.up, keys.enter);
  await waitFor(() => expect(plain(lastFrame())).toContain('before turn 1'));
  await type();
  // Two reads with no render between them.
  stdin.write('3');
  stdin.write(keys.enter);
  await waitFor(() => expect(picked).toEqual([[1, 'files']]));
});

test('a turn without a snapshot offers the conversation only, and says why', async () => {
  const {lastFrame, type, picked} = setup();
  await type(keys.enter);
  await waitFor(() => expect(plain(lastFrame())).toContain('No snapshot before that turn'));
  expect(plain(lastFrame())).not.toContain('files only');
  await type(keys.enter);
  await waitFor(() => expect(picked).toEqual([[3, 'conversation']]));
});

/** On a clock the test moves: turn 2 picked, its last step (the one that rewinds) on screen. */
async function atLastStep() {
  const clock = {time: 1_000};
  const app = setup(clock);
  await app.type(keys.up, keys.enter);
  await waitFor(() => expect(plain(app.lastFrame())).toContain('1. conversation and files'));
  return {...app, clock};
}

test('the step that rewinds ignores keys typed ahead: an Enter right after the one that picked the prompt takes nothing back', async () => {
  const {lastFrame, type, picked, clock} = await atLastStep();
  expect(plain(lastFrame())).not.toContain('enter rewind');
  clock.time += 100;
  await type(keys.enter);
  await waitFor(() => expect(plain(lastFrame())).toContain('Ignored 1 key typed at this choice: pause, then press enter.'));
  clock.time += 100;
  // Digits and arrows move the choice meanwhile: they decide nothing.
  await type('3');
  await waitFor(() => expect(plain(lastFrame())).toContain('› 3. files only'));
  expect(picked).toEqual([]);
  await type(keys.up);
  await waitFor(() => expect(plain(lastFrame())).toContain('› 2. conversation only'));
  // Quiet for the whole wait since the last ignored key, and the key that rewinds is shown: now it counts.
  clock.time += 300;
  await waitFor(() => expect(plain(lastFrame())).toContain('enter rewind'));
  await type(keys.enter);
  await waitFor(() => expect(picked).toEqual([[2, 'conversation']]));
});

test('letters typed during the wait restart it: someone still typing rewinds nothing with the Enter that ends their line', async () => {
  const {lastFrame, type, picked, clock} = await atLastStep();
  for (const key of ['f', 'i', 'x', ' ', 'i', 't']) {
    clock.time += 100;
    await type(key);
  }
  clock.time += 100;
  await type(keys.enter);
  await waitFor(() => expect(plain(lastFrame())).toContain('Ignored 7 keys'));
  expect(picked).toEqual([]);
});

test('a line typed after the wait rewinds nothing either: not with a digit in it, not with the Enter that ends it', async () => {
  const {lastFrame, type, picked, clock} = await atLastStep();
  clock.time += 400;
  await waitFor(() => expect(plain(lastFrame())).toContain('enter rewind'));
  for (const key of ['a', 'd', 'd', ' ', '3', ' ', 't', 'e', 's', 't', 's', keys.enter]) {
    clock.time += 100;
    await type(key);
  }
  // The digit moved the choice; the letters and the Enter are ignored.
  await waitFor(() => expect(plain(lastFrame())).toContain('Ignored 11 keys'));
  expect(picked).toEqual([]);
  expect(plain(lastFrame())).not.toContain('enter rewind');
});
