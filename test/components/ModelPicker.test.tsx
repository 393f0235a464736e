import {render} from 'ink-testing-library';
import {expect, test} from 'vitest';
import {filterModels, ModelPicker} from '../../source/components/ModelPicker.js';
import {plain} from './helpers.js';

const models = ['qwen2.5-coder:7b', 'llama3.2:3b', 'qwen3:8b', 'mistral-nemo'];
const tick = () => new Promise(resolve => setTimeout(resolve, 20));

test('lists the models with the current one marked', () => {
  const frame = plain(render(<ModelPicker models={models} current="llama3.2:3b" onPick={() => {}} onCancel={() => {}} rows={10} width={60} />).lastFrame());
  expect(frame).toContain('Choose a model (4)');
  expect(frame).toContain('› llama3.2:3b (current)');
  expect(frame).toContain('  qwen3:8b');
});

test('typing filters, arrows move, enter picks', async () => {
  const picked: string[] = [];
  const ui = render(<ModelPicker models={models} current="" onPick={model => picked.push(model)} onCancel={() => {}} rows={10} width={60} graceMs={0} />);
  for (const key of 'qwen') {
    ui.stdin.write(key);
    await tick();
  }
  expect(plain(ui.lastFrame())).toContain('Choose a model (2 of 4)');
  expect(plain(ui.lastFrame())).not.toContain('llama');
  ui.stdin.write('\u001B[B');
  await tick();
  ui.stdin.write('\r');
  await tick();
  expect(picked).toEqual(['qwen3:8b']);
});

test('an enter typed ahead switches nothing; typing filters at once, and enter after the wait switches', async () => {
  const clock = {time: 1_000};
  const picked: string[] = [];
  const ui = render(<ModelPicker models={models} current="qwen3:8b" onPick={model => picked.push(model)} onCancel={() => {}} rows={10} width={60} now={() => clock.time} />);
  expect(plain(ui.lastFrame())).toContain('type to filter · ↑/↓ choose · esc back');
  await tick();
  ui.stdin.write('\r');
  await tick();
  expect(picked).toEqual([]);
  expect(plain(ui.lastFrame())).toContain('Ignored 1 key typed at this choice');
  for (const key of 'llama') {
    ui.stdin.write(key);
    await tick();
  }
  expect(plain(ui.lastFrame())).toContain('Choose a model (1 of 4)');
  clock.time += 400;
  await new Promise(resolve => setTimeout(resolve, 400));
  expect(plain(ui.lastFrame())).toContain('enter switch');
  ui.stdin.write('\r');
  await tick();
  expect(picked).toEqual(['llama3.2:3b']);
});

test('a server without a model list says so; esc leaves', async () => {
  let cancelled = false;
  const ui = render(<ModelPicker models={null} current="x" onPick={() => {}} onCancel={() => (cancelled = true)} rows={10} width={60} />);
  expect(plain(ui.lastFrame())).toContain('This server has no model list: switch with /model NAME.');
  ui.stdin.write('\u001B');
  await tick();
  expect(cancelled).toBe(true);
});

test('filterModels matches every word, case-insensitively', () => {
  expect(filterModels(models, 'QWEN 8b')).toEqual(['qwen3:8b']);
  expect(filterModels(models, '')).toEqual(models);
});
