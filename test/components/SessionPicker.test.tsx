import '../support/force-color.js';
import {render} from 'ink-testing-library';
import {expect, test} from 'vitest';
import type {SessionSummary} from '../../source/agent/session/saved.js';
import type {WorkspaceChange} from '../../source/agent/session/snapshots.js';
import {SessionPicker} from '../../source/components/SessionPicker.js';
import {UndoConfirm} from '../../source/components/UndoConfirm.js';
import {createTheme, ThemeContext} from '../../source/components/theme.js';
import {keys, plain} from './helpers.js';
import {waitFor} from '../support/wait-for.js';

const session = (id: string, firstPrompt: string, turns: number, updated: number): SessionSummary => ({
  id,
  path: `/s/${id}.jsonl`,
  created: new Date(updated).toISOString(),
  updated,
  model: 'gpt-x',
  firstPrompt,
  turns,
  messages: turns * 2,
});

const sessions = [
  session('b', 'fix the failing test', 3, Date.UTC(2026, 10, 22, 9, 30)),
  session('a', 'add a README', 1, Date.UTC(2026, 10, 21, 18, 5)),
];

test('the picker lists date, turns, model and first prompt; ↓ and enter pick one', async () => {
  const picked: string[] = [];
  const {lastFrame, stdin} = render(
    <ThemeContext value={createTheme({})}>
      <SessionPicker sessions={sessions} rows={10} width={80} onPick={s => picked.push(s.id)} onCancel={() => picked.push('cancel')} graceMs={0} />
    </ThemeContext>,
  );
  expect(plain(lastFrame()).split('\n')).toEqual([
    'Resume a session (2)',
    '› 2026-11-22 09:30  3 turns   gpt-x  fix the failing test',
    '  2026-11-21 18:05  1 turn    gpt-x  add a README',
    '↑/↓ choose · enter resume · esc new session',
  ]);
  stdin.write(keys.down);
  await waitFor(() => expect(plain(lastFrame())).toContain('› 2026-11-21'));
  stdin.write(keys.enter);
  await waitFor(() => expect(picked).toEqual(['a']));
});

test('an enter typed ahead (a second one after /resume) opens nothing and says so; one after a pause does', async () => {
  const clock = {time: 1_000};
  const picked: string[] = [];
  const {lastFrame, stdin} = render(
    <ThemeContext value={createTheme({})}>
      <SessionPicker sessions={sessions} rows={10} width={80} onPick={s => picked.push(s.id)} onCancel={() => {}} now={() => clock.time} />
    </ThemeContext>,
  );
  expect(plain(lastFrame())).toContain('↑/↓ choose · esc new session');
  await new Promise(resolve => setTimeout(resolve, 60));
  clock.time += 50;
  stdin.write(keys.enter);
  await waitFor(() => expect(plain(lastFrame())).toContain('Ignored 1 key typed at this choice: pause, then press enter.'));
  expect(picked).toEqual([]);
  // Moving counts at once; Enter counts once the list has been quiet for the wait.
  stdin.write(keys.down);
  await waitFor(() => expect(plain(lastFrame())).toContain('› 2026-11-21'));
  clock.time += 400;
  await waitFor(() => expect(plain(lastFrame())).toContain('enter resume'));
  stdin.write(keys.enter);
  await waitFor(() => expect(picked).toEqual(['a']));
});

test('esc cancels; an empty list says so', async () => {
  const events: string[] = [];
  const {lastFrame, stdin} = render(
    <ThemeContext value={createTheme({})}>
      <SessionPicker sessions={[]} rows={10} width={80} onPick={() => events.push('pick')} onCancel={() => events.push('cancel')} />
    </ThemeContext>,
  );
  expect(plain(lastFrame())).toContain('No sessions in this workspace yet.');
  stdin.write(keys.escape);
  await waitFor(() => expect(events).toEqual(['cancel']));
});

const change: WorkspaceChange = {
  path: 'a.txt',
  status: 'modified',
  oldMode: '100644',
  newMode: '100644',
  patch: 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-agent text\n+original text\n',
};

test('undo shows the diff in color, warns about the person\'s edits, and answers y', async () => {
  const answers: boolean[] = [];
  const {lastFrame, stdin} = render(
    <ThemeContext value={createTheme({})}>
      <UndoConfirm title="Undo turn 2" changes={[change]} conflicts={['a.txt']} rows={20} width={80} onAnswer={yes => answers.push(yes)} />
    </ThemeContext>,
  );
  const frame = plain(lastFrame());
  expect(frame).toContain('Undo turn 2: 1 file change');
  expect(frame).toContain('-agent text');
  expect(frame).toContain('+original text');
  expect(frame).toContain("You changed this file after the agent's last turn; undo overwrites your edits:");
  expect(lastFrame()).toContain('\u001B[32m+original text');
  expect(lastFrame()).toContain('\u001B[31m-agent text');
  // A key typed while /undo was being planned answers nothing; the keys show once they count.
  expect(frame).not.toContain('y restore');
  stdin.write('y');
  await waitFor(() => expect(plain(lastFrame())).toContain('y restore · n keep'));
  expect(answers).toEqual([]);
  stdin.write('y');
  stdin.write('n');
  await waitFor(() => expect(answers).toEqual([true]));
});

test('undo: a long diff scrolls, and n keeps the files', async () => {
  const long: WorkspaceChange = {...change, patch: Array.from({length: 40}, (_, i) => `+line ${i}`).join('\n')};
  const answers: boolean[] = [];
  const {lastFrame, stdin} = render(
    <ThemeContext value={createTheme({})}>
      <UndoConfirm title="Undo turn 1" changes={[long]} conflicts={[]} rows={10} width={80} onAnswer={yes => answers.push(yes)} />
    </ThemeContext>,
  );
  expect(plain(lastFrame())).toContain('lines 1–7 of 40');
  // Scrolling is never held back.
  stdin.write(keys.down);
  await waitFor(() => expect(plain(lastFrame())).toContain('lines 2–8 of 40'));
  await waitFor(() => expect(plain(lastFrame())).toContain('lines 2–8 of 40 · ↑/↓ scroll · y restore · n keep'));
  stdin.write('n');
  await waitFor(() => expect(answers).toEqual([false]));
});

test('undo: Esc keeps the files', async () => {
  const answers: boolean[] = [];
  const {lastFrame, stdin} = render(
    <ThemeContext value={createTheme({})}>
      <UndoConfirm title="Undo turn 1" changes={[change]} conflicts={[]} rows={10} width={80} onAnswer={yes => answers.push(yes)} />
    </ThemeContext>,
  );
  await waitFor(() => expect(plain(lastFrame())).toContain('y restore · n keep'));
  stdin.write(keys.escape);
  await waitFor(() => expect(answers).toEqual([false]));
});

test('escape sequences in a logged prompt, a file name or a file\'s content reach the terminal as text', () => {
  const hostile = 'x\u001B]0;pwned\u0007y\u001B[2J';
  const picker = render(
    <ThemeContext value={createTheme({})}>
      <SessionPicker sessions={[session('c', hostile, 1, Date.UTC(2026, 10, 22))]} rows={10} width={80} onPick={() => {}} onCancel={() => {}} />
    </ThemeContext>,
  );
  const patch = `diff --git a/e.txt b/e.txt\n--- a/e.txt\n+++ b/e.txt\n@@ -1 +1 @@\n-${hostile}\n+plain\n`;
  const undo = render(
    <ThemeContext value={createTheme({})}>
      <UndoConfirm title="Undo turn 1" changes={[{path: 'e.txt', status: 'modified', oldMode: '100644', newMode: '100644', patch}]} conflicts={[hostile]} rows={20} width={80} onAnswer={() => {}} />
    </ThemeContext>,
  );
  for (const frame of [picker.lastFrame() ?? '', undo.lastFrame() ?? '']) {
    expect(frame).not.toContain('\u001B]0;');
    expect(frame).not.toContain('\u0007');
    expect(frame).toContain(']0;pwned');
  }
});
