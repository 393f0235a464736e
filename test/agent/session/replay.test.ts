import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import type {AgentEvent} from '../../../source/core/events.js';
import {initialState, reduce, type UiState} from '../../../source/state/reducer.js';
import {SessionLog} from '../../../source/agent/session/log.js';
import {loadSession} from '../../../source/agent/session/saved.js';
import {replayEvents} from '../../../source/agent/session/replay.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nib-replay-'));
});
afterEach(async () => {
  await rm(dir, {recursive: true, force: true});
});

/** A turn as the loop emits it: deltas, messages, a tool round with a diff, usage, the end. */
const liveTurn: AgentEvent[] = [
  {type: 'turn-start', prompt: 'fix the typo', at: 1000},
  {type: 'message', message: {type: 'user', content: 'fix the typo'}},
  {type: 'request-start', round: 1, at: 1001},
  {type: 'text-delta', text: 'Let me '},
  {type: 'text-delta', text: 'look.'},
  {type: 'usage', usage: {promptTokens: 100, completionTokens: 5, totalTokens: 105}},
  {type: 'message', message: {type: 'assistant-tool-calls', content: 'Let me look.', toolCalls: [{id: 'c1', name: 'edit', arguments: '{"path":"a.md"}'}]}},
  {type: 'tool-call', id: 'c1', name: 'edit', arguments: '{"path":"a.md"}', keyArg: 'a.md'},
  {type: 'tool-start', id: 'c1', name: 'edit', at: 1002},
  {type: 'tool-result', id: 'c1', name: 'edit', isError: false, content: 'ok', detail: {summary: '+1 −1', file: {path: 'a.md', oldText: 'teh\n', newText: 'the\n'}}, at: 1003},
  {type: 'message', message: {type: 'tool-result', toolCallId: 'c1', content: 'ok'}},
  {type: 'request-start', round: 2, at: 1004},
  {type: 'text-delta', text: 'Fixed.'},
  {type: 'usage', usage: {promptTokens: 120, completionTokens: 2, totalTokens: 122}},
  {type: 'message', message: {type: 'assistant-text', content: 'Fixed.'}},
  {type: 'turn-end', reason: 'completed', at: 1005},
];

const fold = (events: ReadonlyArray<AgentEvent | {type: 'notice'; text: string}>): UiState =>
  events.reduce<UiState>((state, event) => reduce(state, event), initialState({model: 'm', mode: 'ask'}));

const view = (state: UiState) =>
  state.transcript.map(item => (item.kind === 'tool' ? `tool ${item.tool.name} ${item.tool.status} ${item.tool.summary}` : `${item.kind} ${'text' in item ? item.text : ''}`));

test('the transcript rebuilt from the log is the one the live session showed', async () => {
  const log = SessionLog.create({dir, id: 'r', cwd: '/w', model: 'm', redact: t => t});
  for (const event of liveTurn) await log.observe(event);
  // A second turn killed mid-tool: it never ended.
  for (const event of [
    {type: 'turn-start', prompt: 'run it', at: 2000},
    {type: 'message', message: {type: 'user', content: 'run it'}},
    {type: 'message', message: {type: 'assistant-tool-calls', toolCalls: [{id: 'c2', name: 'bash', arguments: '{"command":"make"}'}]}},
    {type: 'tool-call', id: 'c2', name: 'bash', arguments: '{"command":"make"}', keyArg: 'make'},
    {type: 'tool-start', id: 'c2', name: 'bash', at: 2001},
  ] satisfies AgentEvent[]) await log.observe(event);
  log.recordUndo(2);
  await log.close();

  const loaded = await loadSession(log.path);
  if (!loaded.ok) throw new Error(loaded.error.message);
  const replayed = fold(replayEvents(loaded.value));
  const live = fold(liveTurn);

  expect(view(replayed).slice(0, view(live).length)).toEqual(view(live));
  expect(view(replayed).slice(view(live).length)).toEqual([
    'user run it',
    'tool bash failed interrupted',
    'notice interrupted',
    'notice Undid turn 2: files restored to before it.',
  ]);
  const tool = replayed.transcript.find(item => item.kind === 'tool');
  expect(tool?.kind === 'tool' && tool.tool.detail?.file?.newText).toBe('the\n');
  expect(replayed.usage).toEqual(live.usage);
  expect(replayed.busy).toBe(false);
});
