import '../support/force-color.js';
import {render} from 'ink-testing-library';
import {expect, test} from 'vitest';
import type {ToolView} from '../../source/state/reducer.js';
import {ToolBadge} from '../../source/components/ToolBadge.js';
import {createTheme, ThemeContext} from '../../source/components/theme.js';
import {plain} from './helpers.js';

const base: ToolView = {callId: 'c1', name: 'bash', keyArg: 'npm test', status: 'pending', output: ''};
const show = (tool: Partial<ToolView>, now = 0, width = 60) =>
  render(
    <ThemeContext value={createTheme({})}>
      <ToolBadge tool={{...base, ...tool}} now={now} width={width} />
    </ThemeContext>,
  );

test('pending: icon, name and key argument', () => {
  expect(plain(show({}).lastFrame())).toBe('○ bash npm test');
});

test('waiting for approval', () => {
  expect(plain(show({status: 'waiting-approval'}).lastFrame())).toBe('? bash npm test · waiting for approval');
});

test('a progress line waiting on its CR (the reducer keeps one at the end) still shows', () => {
  expect(plain(show({status: 'running', startedAt: 1000, output: 'fetching\ndone 5%\r'}, 4200).lastFrame()).split('\n').slice(1)).toEqual(['  │ fetching', '  │ done 5%']);
});

test('running shows the elapsed time and the last output lines', () => {
  const frame = plain(show({status: 'running', startedAt: 1000, output: 'one\ntwo\nthree\nfour\n'}, 4200).lastFrame());
  expect(frame.split('\n')).toEqual(['◒ bash npm test · running 3.2 s', '  │ two', '  │ three', '  │ four']);
});

test('done shows the summary', () => {
  expect(plain(show({name: 'read', keyArg: 'a.ts', status: 'done', summary: 'read 120 lines'}).lastFrame())).toBe(
    '✓ read a.ts · read 120 lines',
  );
});

test('failed is red with the message', () => {
  const {lastFrame} = show({status: 'failed', summary: 'exit 1 · 3.2 s'});
  expect(plain(lastFrame())).toBe('✗ bash npm test · exit 1 · 3.2 s');
  expect(lastFrame()).toContain('\u001B[31m');
});

test('denied shows the reason', () => {
  expect(plain(show({status: 'denied', summary: 'denied: not now'}).lastFrame())).toBe('⊘ bash npm test · denied: not now');
});

test('an edited call says so', () => {
  expect(plain(show({name: 'edit', keyArg: 'a.ts', status: 'done', summary: '+1 −1', edited: true}).lastFrame())).toBe(
    '✓ edit a.ts · +1 −1 · edited by you',
  );
});

test('a narrow terminal truncates instead of wrapping', () => {
  const frame = plain(show({status: 'done', keyArg: 'x'.repeat(80), summary: 'ok'}, 0, 40).lastFrame());
  expect(frame.split('\n')).toHaveLength(1);
  expect(frame.length).toBeLessThanOrEqual(40);
});

test('NO_COLOR: no color codes at all', () => {
  const {lastFrame} = render(
    <ThemeContext value={createTheme({NO_COLOR: '1'})}>
      <ToolBadge tool={{...base, status: 'failed', summary: 'boom'}} now={0} width={60} />
    </ThemeContext>,
  );
  expect(lastFrame()).not.toMatch(/\u001B\[3\dm/);
});

test('a long command gives way to its status: the exit code and time stay on the line', () => {
  const line = plain(show({status: 'done', keyArg: `npm run build && ${'x'.repeat(120)}`, summary: 'exit 0 · 3.1 s', edited: true}).lastFrame());
  expect(line).toMatch(/^✓ bash npm run build && x+… · exit 0 · 3\.1 s · edited by you$/);
  expect(line.length).toBeLessThanOrEqual(60);
});
