import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, describe, expect, test} from 'vitest';
import {SUMMARY_PREFIX} from '../../../source/agent/compact.js';
import {SessionLog, type SnapshotRecord} from '../../../source/agent/session/log.js';
import {loadSession} from '../../../source/agent/session/saved.js';
import {rewindPoints} from '../../../source/agent/session/rewind.js';
import {typedPrompts} from '../../../source/agent/session/saved.js';
import type {Message} from '../../../source/core/messages.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map(dir => rm(dir, {recursive: true, force: true})));
});

const user = (content: string): Message => ({type: 'user', content});
const answer = (content: string): Message => ({type: 'assistant-text', content});
const before = (turn: number): SnapshotRecord => ({type: 'snapshot', at: 0, turn, phase: 'before', id: `s${turn}`});

describe('rewindPoints', () => {
  test('each user message is a turn, counted back from the latest; typed prompts and snapshots are attached', () => {
    const history = [{type: 'system', content: 's'} as Message, user('one + attachments'), answer('a'), user('two'), answer('b'), user('three'), answer('c')];
    // Only turn 2 changed files: before turn 1 they were as before turn 2; after it, nothing changed them.
    const points = rewindPoints({history, turns: 3, prompts: ['one', undefined, 'three'], snapshots: [before(2)]});
    expect(points).toEqual([
      {turn: 1, prompt: 'one', historyIndex: 1, files: true},
      {turn: 2, prompt: 'two', historyIndex: 3, files: true},
      {turn: 3, prompt: 'three', historyIndex: 5, files: false},
    ]);
  });

  test('after a compaction: a standalone summary is not a turn, and the prompt it is folded into cannot be cut', () => {
    const standalone = [user(`${SUMMARY_PREFIX}\n\nwhat happened`), answer('x'), user('seven'), answer('y')];
    expect(rewindPoints({history: standalone, turns: 7, prompts: [], snapshots: []}).map(point => [point.turn, point.prompt])).toEqual([[7, 'seven']]);
    const folded = [user(`${SUMMARY_PREFIX}\n\nsummary\n\n---\n\nsix`), answer('x'), user('seven')];
    expect(rewindPoints({history: folded, turns: 7, prompts: [], snapshots: []}).map(point => point.turn)).toEqual([7]);
  });
});

describe('the rewind record', () => {
  test('a resumed log continues from the rewound conversation, turn count and snapshots', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nib-rewind-'));
    dirs.push(dir);
    const log = SessionLog.create({dir, id: 'r', cwd: '/w', model: 'm', redact: text => text});
    const turn = async (n: number, typed: string) => {
      await log.observe({type: 'turn-start', prompt: typed, at: n});
      log.recordSnapshot(n, 'before', `s${n}`);
      await log.observe({type: 'message', message: user(`${typed} (expanded)`)});
      await log.observe({type: 'message', message: answer(`answer ${n}`)});
      await log.observe({type: 'turn-end', reason: 'completed', at: n});
    };
    await turn(1, 'first');
    await turn(2, 'second');
    await turn(3, 'third');
    log.recordRewind(2, [user('first (expanded)'), answer('answer 1')]);
    await turn(2, 'second again');
    await log.close();

    const loaded = await loadSession(log.path);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.turns).toBe(2);
    expect(loaded.value.history.map(message => (message as {content: string}).content)).toEqual(['first (expanded)', 'answer 1', 'second again (expanded)', 'answer 2']);
    expect(loaded.value.snapshots.map(snapshot => snapshot.id)).toEqual(['s1', 's2']);
    expect(typedPrompts(loaded.value.records)).toEqual(['first', 'second again']);
    const points = rewindPoints({history: loaded.value.history, turns: loaded.value.turns, prompts: typedPrompts(loaded.value.records), snapshots: loaded.value.snapshots});
    expect(points.map(point => [point.turn, point.prompt, point.files])).toEqual([[1, 'first', true], [2, 'second again', true]]);
  });
});
