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

function setup() {
  const picked: Array<[number, RewindScope]> = [];
  let cancelled = 0;
  const app = render(<RewindPicker items={items} onPick={(item, scope) => picked.push([item.turn, scope])} onCancel={() => cancelled++} rows={10} width={80} />);
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

test('a digit picks a choice; Esc goes back a step, then cancels', async () => {
  const {lastFrame, type, picked, cancelled} = setup();
  await type(keys.up, keys.up, keys.enter);
  await waitFor(() => expect(plain(lastFrame())).toContain('before turn 1'));
  await type(keys.escape);
  await waitFor(() => expect(plain(lastFrame())).toContain('Rewind to before which prompt?'));
  await type(keys.enter, '3');
  await waitFor(() => expect(picked).toEqual([[1, 'files']]));
  await type(keys.escape);
  await waitFor(() => expect(plain(lastFrame())).toContain('Rewind to before which prompt?'));
  await type(keys.escape);
  await waitFor(() => expect(cancelled()).toBe(1));
});

test('a turn without a snapshot offers the conversation only, and says why', async () => {
  const {lastFrame, type, picked} = setup();
  await type(keys.enter);
  await waitFor(() => expect(plain(lastFrame())).toContain('No snapshot before that turn'));
  expect(plain(lastFrame())).not.toContain('files only');
  await type(keys.enter);
  await waitFor(() => expect(picked).toEqual([[3, 'conversation']]));
});
