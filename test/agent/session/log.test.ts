import {createRedactor} from '../../../source/agent/config/redact.js';
import {mkdtemp, readdir, readFile, rm, utimes, writeFile, appendFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import type {AgentEvent} from '../../../source/core/events.js';
import {unansweredToolCalls, type Message} from '../../../source/core/messages.js';
import {SessionLog, dataDir, sessionsDir, workspaceKey} from '../../../source/agent/session/log.js';
import {INTERRUPTED_RESULT, deleteSession, findSession, latestSession, listSessions, loadSession, repairHistory} from '../../../source/agent/session/saved.js';
import {pruneDue, pruneSessions} from '../../../source/agent/session/retention.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nib-session-'));
});
afterEach(async () => {
  await rm(dir, {recursive: true, force: true});
});

const noRedact = (text: string) => text;
const user = (content: string): Message => ({type: 'user', content});
const calls = (...ids: string[]): Message => ({
  type: 'assistant-tool-calls',
  toolCalls: ids.map(id => ({id, name: 'read', arguments: '{"path":"a"}'})),
});
const result = (id: string): Message => ({type: 'tool-result', toolCallId: id, content: 'ok'});

async function writeSession(messages: Message[], id = 's1'): Promise<SessionLog> {
  const log = SessionLog.create({dir, id, cwd: '/w', model: 'm', redact: noRedact});
  for (const message of messages) await log.observe({type: 'message', message});
  await log.close();
  return log;
}

describe('paths', () => {
  test('data dir follows XDG_DATA_HOME, with the ~/.local/share fallback', () => {
    expect(dataDir({XDG_DATA_HOME: '/x/data'})).toBe('/x/data/nib');
    expect(dataDir({HOME: '/home/me'})).toMatch(/\/\.local\/share\/nib$/);
  });

  test('workspace key is readable and tells apart folders with the same name', () => {
    const a = workspaceKey('/home/me/project');
    expect(a).toMatch(/^project-[0-9a-f]{10}$/);
    expect(workspaceKey('/tmp/project')).not.toBe(a);
    expect(sessionsDir('/d', '/home/me/project')).toBe(`/d/sessions/${a}`);
  });
});

describe('writing and loading', () => {
  test('messages and kept events round-trip; deltas are not stored', async () => {
    const log = SessionLog.create({dir, id: 'abc', cwd: '/w', model: 'gpt-x', redact: noRedact});
    const events: AgentEvent[] = [
      {type: 'turn-start', prompt: 'hi', at: 1},
      {type: 'message', message: user('hi')},
      {type: 'request-start', round: 1, at: 2},
      {type: 'text-delta', text: 'hel'},
      {type: 'message', message: {type: 'assistant-text', content: 'hello'}},
      {type: 'usage', usage: {promptTokens: 10, completionTokens: 2, totalTokens: 12}},
      {type: 'turn-end', reason: 'completed', at: 3},
    ];
    for (const event of events) await log.observe(event);
    log.recordSnapshot(1, 'before', 'deadbeef');
    await log.close();

    const loaded = await loadSession(log.path);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.value.header).toMatchObject({id: 'abc', model: 'gpt-x', cwd: '/w'});
    expect(loaded.value.messages).toEqual([user('hi'), {type: 'assistant-text', content: 'hello'}]);
    expect(loaded.value.turns).toBe(1);
    expect(loaded.value.snapshots).toMatchObject([{turn: 1, phase: 'before', id: 'deadbeef'}]);
    const kept = loaded.value.records.filter(r => r.type === 'event').map(r => r.type === 'event' && r.event.type);
    expect(kept).toEqual(['turn-start', 'usage', 'turn-end']);
    expect(loaded.value.warnings).toEqual([]);
  });

  test('records are on disk once observe() of the next request returns', async () => {
    const log = SessionLog.create({dir, id: 'f', cwd: '/w', model: 'm', redact: noRedact});
    await log.observe({type: 'message', message: user('one')});
    await log.observe({type: 'request-start', round: 1, at: 0});
    const text = await readFile(log.path, 'utf8');
    expect(text.split('\n').filter(Boolean)).toHaveLength(2);
    await log.close();
  });

  test('no file is created before anything is flushed', async () => {
    const log = SessionLog.create({dir, cwd: '/w', model: 'm', redact: noRedact});
    await log.close();
    expect(await readdir(dir)).toEqual([]);
  });

  test('a log from a newer nib is read as far as this one can, and says so', async () => {
    const log = await writeSession([user('first')]);
    const text = await readFile(log.path, 'utf8');
    await writeFile(log.path, text.replace(/"version":\d+/, '"version":99'));
    const loaded = await loadSession(log.path);
    expect(loaded.ok && loaded.value.messages).toEqual([user('first')]);
    expect(loaded.ok && loaded.value.warnings).toEqual([expect.stringMatching(/was written by a newer nib \(log version 99, this one reads 1\)/)]);
  });

  test('a torn last line is ignored with a warning, and appending after it stays readable', async () => {
    const log = await writeSession([user('first'), {type: 'assistant-text', content: 'answer'}]);
    await appendFile(log.path, '{"type":"message","at":5,"message":{"type":"user","cont');
    const loaded = await loadSession(log.path);
    expect(loaded.ok && loaded.value.messages).toEqual([user('first'), {type: 'assistant-text', content: 'answer'}]);
    expect(loaded.ok && loaded.value.warnings[0]).toMatch(/cut off/);

    if (!loaded.ok) return;
    const again = SessionLog.reopen(loaded.value, {redact: noRedact});
    await again.observe({type: 'message', message: user('second')});
    await again.close();
    const reloaded = await loadSession(log.path);
    expect(reloaded.ok && reloaded.value.messages.map(m => m.type === 'user' && m.content)).toEqual(['first', false, 'second']);
  });

  test('a file that is not JSON at all is a clear error, not a crash', async () => {
    const path = join(dir, 'junk.jsonl');
    await writeFile(path, 'this is not json\n\u0000\u0001 binary');
    const loaded = await loadSession(path);
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.error.code).toBe('not-a-session');
    expect(loaded.error.message).toContain(path);
    expect(loaded.error.message).toMatch(/not a nib session/);
  });

  test('a missing file is not-found', async () => {
    const loaded = await loadSession(join(dir, 'nope.jsonl'));
    expect(!loaded.ok && loaded.error.code).toBe('not-found');
  });

  test('compaction records replace the history the model sees; messages keep everything', async () => {
    const log = SessionLog.create({dir, id: 'c', cwd: '/w', model: 'm', redact: noRedact});
    for (const m of [user('a'), {type: 'assistant-text', content: 'b'} as Message, user('c')]) log.recordMessage(m);
    log.recordCompaction([user('Summary: a, b'), {type: 'assistant-text', content: 'ok'}], 'a, b');
    log.recordMessage(user('d'));
    await log.close();
    const loaded = await loadSession(log.path);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.messages).toHaveLength(4);
    expect(loaded.value.history.map(m => m.type === 'user' ? m.content : 'assistant')).toEqual(['Summary: a, b', 'assistant', 'd']);
  });
});

describe('history repair', () => {
  test('unanswered tool calls get an interrupted result right after their call', () => {
    const history = [user('go'), calls('a', 'b'), result('a')];
    const repaired = repairHistory(history);
    expect(unansweredToolCalls(repaired)).toEqual([]);
    expect(repaired.at(-1)).toEqual({type: 'tool-result', toolCallId: 'b', content: INTERRUPTED_RESULT, isError: true});
  });

  test('results are moved next to their call and orphans dropped', () => {
    const history = [user('go'), calls('a'), user('more'), result('a'), result('zzz')];
    const repaired = repairHistory(history);
    expect(repaired.map(m => m.type)).toEqual(['user', 'assistant-tool-calls', 'tool-result', 'user']);
  });

  test('a valid history is returned as is', () => {
    const history = [user('go'), calls('a'), result('a'), {type: 'assistant-text', content: 'done'} as Message];
    expect(repairHistory(history)).toEqual(history);
  });
});

describe('secrets', () => {
  test('values of *_KEY, *_TOKEN, *_SECRET and the API key never reach the file', async () => {
    const env = {OPENAI_API_KEY: 'sk-live-0123456789', FOO_TOKEN: 'tok"en\\value-42', DB_SECRET: 'hunter2hunter2', SHORT_KEY: 'ab', PATH: '/bin'};
    const redact = createRedactor(env, [{name: 'apiKey', value: 'cfg-key-abcdef'}]);
    const log = SessionLog.create({dir, id: 'r', cwd: '/w', model: 'm', redact});
    await log.observe({type: 'message', message: user('my key is sk-live-0123456789 and cfg-key-abcdef')});
    await log.observe({type: 'message', message: {type: 'tool-result', toolCallId: 'x', content: 'FOO_TOKEN=tok"en\\value-42\nDB hunter2hunter2 /bin ab'}});
    await log.close();
    const text = await readFile(log.path, 'utf8');
    for (const secret of ['sk-live-0123456789', 'cfg-key-abcdef', 'hunter2hunter2', 'tok"en\\value-42', JSON.stringify('tok"en\\value-42').slice(1, -1)]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted:OPENAI_API_KEY]');
    expect(text).toContain('[redacted:FOO_TOKEN]');
    expect(text).toContain('/bin ab'); // short values and ordinary variables are left alone
    const loaded = await loadSession(log.path);
    expect(loaded.ok).toBe(true);
  });
});

describe('listing, deleting, retention', () => {
  test('list shows first prompt, turns and model, newest first; latest and find by prefix', async () => {
    await writeSession([user('fix the\n  tests'), {type: 'assistant-text', content: 'ok'}, user('again')], '20260101-000000-aaaaaa');
    const second = await writeSession([user('second one')], '20260102-000000-bbbbbb');
    await writeFile(join(dir, 'broken.jsonl'), 'garbage');
    const old = new Date(Date.now() - 60_000);
    await utimes(join(dir, 'broken.jsonl'), old, old);
    await utimes(join(dir, '20260101-000000-aaaaaa.jsonl'), new Date(Date.now() - 30_000), new Date(Date.now() - 30_000));

    const list = await listSessions(dir);
    expect(list.map(s => s.id)).toEqual(['20260102-000000-bbbbbb', '20260101-000000-aaaaaa', 'broken']);
    expect(list[1]).toMatchObject({firstPrompt: 'fix the tests', turns: 2, model: 'm', messages: 3});
    expect(list[2]!.firstPrompt).toMatch(/not a nib session/);
    expect(await latestSession(dir)).toBe(second.path);
    expect(await findSession(dir, '20260101')).toEqual({ok: true, value: join(dir, '20260101-000000-aaaaaa.jsonl')});
    expect((await findSession(dir, '2026')).ok).toBe(false);

    expect((await deleteSession(dir, '20260102')).ok).toBe(true);
    expect((await listSessions(dir)).map(s => s.id)).toEqual(['20260101-000000-aaaaaa', 'broken']);
  });

  test('the list shows the first prompt as typed, not the files attached to it with @', async () => {
    const log = SessionLog.create({dir, id: '20260103-000000-cccccc', cwd: '/w', model: 'm', redact: noRedact});
    await log.observe({type: 'turn-start', prompt: 'read @"my file.txt" now', at: 1});
    await log.observe({type: 'message', message: user('read @"my file.txt" now\n\nAttached with @ (as the read tool returns them):\n<file path="my file.txt">\nx\n</file>')});
    await log.close();
    expect((await listSessions(dir)).find(s => s.id === '20260103-000000-cccccc')?.firstPrompt).toBe('read @"my file.txt" now');
  });

  test('latest of an empty workspace is null', async () => {
    expect(await latestSession(join(dir, 'nothing'))).toBeNull();
  });

  test('retention deletes logs not written for N days, in every workspace', async () => {
    const data = join(dir, 'data');
    const a = sessionsDir(data, '/w/a');
    const b = sessionsDir(data, '/w/b');
    const logA = SessionLog.create({dir: a, id: 'old', cwd: '/w/a', model: 'm', redact: noRedact});
    await logA.observe({type: 'message', message: user('x')});
    await logA.close();
    const logB = SessionLog.create({dir: b, id: 'new', cwd: '/w/b', model: 'm', redact: noRedact});
    await logB.observe({type: 'message', message: user('y')});
    await logB.close();
    const fortyDaysAgo = new Date(Date.now() - 40 * 86_400_000);
    await utimes(logA.path, fortyDaysAgo, fortyDaysAgo);

    expect(await pruneSessions(data, {retentionDays: 0})).toEqual([]);
    expect(await pruneSessions(data, {retentionDays: 30})).toEqual(['old']);
    expect(await latestSession(a)).toBeNull();
    expect(await latestSession(b)).toBe(logB.path);
  });

  test('retention runs once a day: the first start is due, the next ones that day are not', async () => {
    const data = join(dir, 'fresh-data');
    const now = Date.now();
    expect(await pruneDue(data, now)).toBe(true);
    expect(await pruneDue(data, now + 60_000)).toBe(false);
    expect(await pruneDue(data, now + 23 * 3_600_000)).toBe(false);
    // A day later, or a clock set back past the mark: due again.
    expect(await pruneDue(data, now + 25 * 3_600_000)).toBe(true);
    expect(await pruneDue(data, now - 3_600_000)).toBe(true);
  });
});
