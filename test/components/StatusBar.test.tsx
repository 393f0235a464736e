import {render} from 'ink-testing-library';
import {expect, test} from 'vitest';
import {formatTokens, StatusBar, type Props} from '../../source/components/StatusBar.js';
import {plain} from './helpers.js';

const props: Props = {
  model: 'gpt-4.1-mini',
  mode: 'ask',
  alwaysTools: [],
  promptTokens: 12_400,
  completionTokens: 830,
  contextTokens: 6200,
  cwd: '~/src/app',
  keyState: 'idle',
  width: 100,
};

test('model, mode, tokens and directory, then the keys that apply', () => {
  const lines = plain(render(<StatusBar {...props} />).lastFrame()).split('\n');
  expect(lines[0]).toBe('gpt-4.1-mini · ask · ↑12.4k ↓830 · ~/src/app');
  expect(lines[1]).toContain('enter send');
});

test('"always" tools and context fill', () => {
  const frame = plain(render(<StatusBar {...props} alwaysTools={['bash', 'edit']} contextWindow={62_000} />).lastFrame());
  expect(frame).toContain('ask · always: bash, edit · ↑12.4k ↓830 (10% of 62,000 ctx)');
});

test('"always" rules: one short one by name, more counted, so the tokens and the directory stay on the line', () => {
  const one = plain(render(<StatusBar {...props} alwaysTools={[]} alwaysRules={['bash(npm test)']} />).lastFrame()).split('\n')[0];
  expect(one).toBe('gpt-4.1-mini · ask · always: bash(npm test) · ↑12.4k ↓830 · ~/src/app');
  const many = plain(render(<StatusBar {...props} alwaysTools={['write']} alwaysRules={['bash(npm run build:*)', 'bash(git commit:*)']} />).lastFrame()).split('\n')[0];
  expect(many).toBe('gpt-4.1-mini · ask · always: write, 2 rules (/permissions) · ↑12.4k ↓830 · ~/src/app');
});

test('the server\'s window, or that nobody said it: never a made-up percentage', () => {
  const small = {...props, contextTokens: 1800};
  expect(plain(render(<StatusBar {...small} contextWindow={4096} />).lastFrame())).toContain('(44% of 4,096 ctx)');
  const unknown = plain(render(<StatusBar {...small} contextWindow={null} />).lastFrame());
  expect(unknown).toContain('(ctx window unknown)');
  expect(unknown).not.toMatch(/%/);
});

test('hints follow the state', () => {
  expect(plain(render(<StatusBar {...props} keyState="busy" />).lastFrame())).toContain('esc interrupt');
  expect(plain(render(<StatusBar {...props} keyState="approval" />).lastFrame())).toContain('keys as shown above');
  expect(plain(render(<StatusBar {...props} keyState="confirm-exit" />).lastFrame())).toContain('press ctrl+c again to exit');
  expect(plain(render(<StatusBar {...props} keyState="commands" />).lastFrame())).toContain('enter pick · tab complete');
});

test('40 columns: each line is cut, never wrapped', () => {
  const lines = plain(render(<StatusBar {...props} width={40} />).lastFrame()).split('\n');
  expect(lines).toHaveLength(2);
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
});

test('formatTokens', () => {
  expect([formatTokens(999), formatTokens(1000), formatTokens(12_345), formatTokens(250_000)]).toEqual(['999', '1k', '12.3k', '250k']);
});
