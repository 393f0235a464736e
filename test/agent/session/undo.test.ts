import {chmod, readFile, stat, writeFile, access} from 'node:fs/promises';
import {join} from 'node:path';
import {mkdir} from 'node:fs/promises';
import {afterEach, beforeEach, describe, expect, test, vi} from 'vitest';
import type {AgentSession, SessionEvent} from '../../../source/agent/session/agent-session.js';
import {Snapshots} from '../../../source/agent/session/snapshots.js';
import {loadSession} from '../../../source/agent/session/saved.js';
import type {AgentEvent} from '../../../source/core/events.js';
import {startOpenAiServer, type OpenAiServer} from '../../support/openai-server.js';
import {createSandbox, openTestSession, type Sandbox} from '../../support/session.js';
import {sse} from '../../support/sse.js';

let sandbox: Sandbox;
let root: string;
let server: OpenAiServer | undefined;
beforeEach(async () => {
  sandbox = await createSandbox('nib-undo-');
  root = sandbox.workspace;
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await sandbox.cleanup();
});

const exists = (path: string) => access(path).then(() => true, () => false);

/** The server's two answers for a turn that writes one file: the call, then the closing text. */
const writeTurn = (path: string, content: string, answer = 'ok') => [sse.toolCall('write', {path, content}), sse.text(answer)];

async function openSession() {
  const {session} = await openTestSession(sandbox, ['--base-url', server!.url, '--approval-mode', 'yolo']);
  return session;
}

/** One user turn through the session, as the TUI drives it; waits for the turn's closing snapshot. */
async function turn(session: AgentSession, prompt: string) {
  const events: AgentEvent[] = [];
  const unsubscribe = session.subscribe(event => {
    if (event.type === 'tool-result') events.push(event);
  });
  await session.prompt(prompt);
  unsubscribe();
  await session.diff(); // waits for the snapshots queued by the turn
  return events;
}

test('/undo after a turn that edited a file, created one and rm-ed a third with bash restores all three', async () => {
  const editedBytes = Buffer.from('keep this line\r\nchange me\r\n');
  const removedBytes = Buffer.from('#!/bin/sh\necho precious\n');
  await writeFile(join(root, 'edited.txt'), editedBytes);
  await chmod(join(root, 'edited.txt'), 0o600);
  await writeFile(join(root, 'run.sh'), removedBytes);
  await chmod(join(root, 'run.sh'), 0o755);

  server = await startOpenAiServer([
    sse.toolCall('read', {path: 'edited.txt'}),
    sse.toolCalls([
      {name: 'edit', arguments: {path: 'edited.txt', old_string: 'change me', new_string: 'changed by the agent'}},
      {name: 'write', arguments: {path: 'src/created.ts', content: 'export const x = 1;\n'}},
      {name: 'bash', arguments: {command: 'rm run.sh'}},
    ]),
    sse.text('Done.'),
  ]);
  const session = await openSession();
  const events = await turn(session, 'do three things');
  expect(events.filter(e => e.type === 'tool-result').map(e => e.type === 'tool-result' && e.isError)).toEqual([false, false, false, false]);
  expect(await readFile(join(root, 'edited.txt'), 'utf8')).toContain('changed by the agent');
  expect(await exists(join(root, 'run.sh'))).toBe(false);

  const plan = await session.planUndo();
  if (!plan.ok) throw new Error(plan.error);
  expect(plan.value.turn).toBe(1);
  expect(plan.value.conflicts).toEqual([]);
  expect(plan.value.changes.map(c => `${c.status} ${c.path}`)).toEqual(['modified edited.txt', 'added run.sh', 'deleted src/created.ts']);
  expect(plan.value.changes[0]!.patch).toContain('+change me');

  const undone = await session.undo();
  expect(undone.ok).toBe(true);
  expect(await readFile(join(root, 'edited.txt'))).toEqual(editedBytes);
  expect((await stat(join(root, 'edited.txt'))).mode & 0o777).toBe(0o600);
  expect(await readFile(join(root, 'run.sh'))).toEqual(removedBytes);
  expect((await stat(join(root, 'run.sh'))).mode & 0o111).toBe(0o111);
  expect(await exists(join(root, 'src', 'created.ts'))).toBe(false);
  expect(await exists(join(root, 'src'))).toBe(false);
  const system = session.history[0];
  expect(system?.type === 'system' && system.content).toMatch(/undid turn 1/);

  // Nothing left to undo, and the log remembers that on resume.
  expect((await session.planUndo()).ok).toBe(false);
  await session.close();
  const loaded = await loadSession(session.logPath);
  expect(loaded.ok && loaded.value.snapshots).toEqual([]);
});

test('/undo warns about a file the person changed after the turn; /diff shows the whole session', async () => {
  await writeFile(join(root, 'a.txt'), 'original\n');
  server = await startOpenAiServer([...writeTurn('a.txt', 'by the agent\n'), ...writeTurn('b.txt', 'second turn\n')]);
  const session = await openSession();
  await turn(session, 'first');
  await turn(session, 'second');
  await writeFile(join(root, 'a.txt'), 'the person edited this\n');

  const diff = await session.diff();
  if (!diff.ok) throw new Error(diff.error);
  expect(diff.value.map(c => `${c.status} ${c.path}`)).toEqual(['modified a.txt', 'added b.txt']);

  const plan = await session.planUndo(1);
  if (!plan.ok) throw new Error(plan.error);
  expect(plan.value.conflicts).toEqual(['a.txt']);
  const undone = await session.undo(1);
  expect(undone.ok).toBe(true);
  expect(await readFile(join(root, 'a.txt'), 'utf8')).toBe('original\n');
  expect(await exists(join(root, 'b.txt'))).toBe(false);
  await session.close();
});

test('a turn that only answers takes no snapshot: an edit the person made before it is still theirs to /undo', async () => {
  await writeFile(join(root, 'a.txt'), 'original\n');
  server = await startOpenAiServer([...writeTurn('a.txt', 'by the agent\n'), sse.text('just an answer')]);
  const session = await openSession();
  await turn(session, 'write it');
  await writeFile(join(root, 'a.txt'), 'the person edited this\n');
  await turn(session, 'a question');
  const loaded = await loadSession(session.logPath);
  expect(loaded.ok && loaded.value.snapshots.map(s => `${s.phase} ${s.turn}`)).toEqual(['before 1', 'after 1']);
  // The person's edit came after the agent's last change, whatever was asked since.
  const plan = await session.planUndo();
  expect(plan.ok && [plan.value.turn, plan.value.conflicts]).toEqual([1, ['a.txt']]);
  await session.close();
});

test('/undo N of a turn that changed nothing goes back to before the first later turn that did', async () => {
  server = await startOpenAiServer([sse.text('just an answer'), ...writeTurn('b.txt', 'b\n')]);
  const session = await openSession();
  await turn(session, 'a question');
  await turn(session, 'write b');
  expect(session.rewindPoints().map(point => point.files)).toEqual([true, true]);
  const undone = await session.undo(1);
  expect(undone.ok && undone.value.deleted).toEqual(['b.txt']);
  expect(await exists(join(root, 'b.txt'))).toBe(false);
  expect(await session.undo(1)).toEqual({ok: false, error: 'Nothing to undo: no turn from 1 on has changed files.'});
  await session.close();
});

test('a turn whose write was refused (plan mode) or declined takes no snapshot: /undo still goes back to the last change', async () => {
  server = await startOpenAiServer([...writeTurn('a.txt', 'a\n'), ...writeTurn('b.txt', 'b\n', 'refused')]);
  const session = await openSession();
  await turn(session, 'write a');
  session.setMode('plan');
  await turn(session, 'write b');
  expect(await exists(join(root, 'b.txt'))).toBe(false);
  const plan = await session.planUndo();
  expect(plan.ok && [plan.value.turn, plan.value.changes.map(c => `${c.status} ${c.path}`)]).toEqual([1, ['deleted a.txt']]);
  await session.close();
});

test('a turn that changed files with no snapshot stops /undo N and /rewind from going back past it', async () => {
  // Print mode in ask takes no snapshots; a permission rule lets the command run all the same.
  await mkdir(join(sandbox.env['XDG_CONFIG_HOME']!, 'nib'), {recursive: true});
  await writeFile(join(sandbox.env['XDG_CONFIG_HOME']!, 'nib', 'config.json'), JSON.stringify({permissions: {allow: ['bash(touch made.txt)']}}));
  server = await startOpenAiServer([sse.toolCall('bash', {command: 'touch made.txt'}), sse.text('ok'), ...writeTurn('b.txt', 'b\n')]);
  const printed = await openTestSession(sandbox, ['--base-url', server.url, '--approval-mode', 'ask'], {canAsk: false});
  await printed.session.prompt('make it');
  await printed.session.close();
  expect(await exists(join(root, 'made.txt'))).toBe(true);
  const session = await openTestSession(sandbox, ['--base-url', server.url, '--approval-mode', 'yolo', '--continue']).then(opened => opened.session);
  await turn(session, 'write b');
  expect(session.rewindPoints().map(point => [point.turn, point.files])).toEqual([[1, false], [2, true]]);
  const error = 'No snapshot before turn 1, which changed files (snapshots were off or failed), so undo cannot take it back.';
  expect(await session.planUndo(1)).toEqual({ok: false, error});
  expect(await session.rewind(1, 'both')).toEqual({ok: false, error});
  expect(await exists(join(root, 'b.txt'))).toBe(true);
  // Turn 2 itself is still one /undo takes back.
  const undone = await session.undo();
  expect(undone.ok && undone.value.deleted).toEqual(['b.txt']);
  await session.close();
});

test('a failed snapshot marks its turn: /undo N of it says so instead of undoing the next turn', async () => {
  server = await startOpenAiServer([...writeTurn('a.txt', 'a\n'), ...writeTurn('b.txt', 'b\n')]);
  const take = Snapshots.prototype.take;
  let calls = 0;
  vi.spyOn(Snapshots.prototype, 'take').mockImplementation(async function (this: Snapshots, label: string) {
    return ++calls === 1 ? {ok: false, error: {code: 'git-failed', message: 'git broke'}} : take.call(this, label);
  });
  const session = await openSession();
  await turn(session, 'write a');
  await turn(session, 'write b');
  const plan = await session.planUndo(1);
  expect(plan.ok ? plan.value.turn : plan.error).toMatch(/^No snapshot before turn 1, which changed files/);
  vi.restoreAllMocks();
  await session.close();
});

test('a PreToolUse hook that changes a file comes after the undo point, even on a read call', async () => {
  await mkdir(join(sandbox.env['XDG_CONFIG_HOME']!, 'nib'), {recursive: true});
  await writeFile(join(sandbox.env['XDG_CONFIG_HOME']!, 'nib', 'config.json'), JSON.stringify({hooks: {PreToolUse: [{hooks: [{type: 'command', command: 'echo hooked > hooked.txt'}]}]}}));
  await writeFile(join(root, 'a.txt'), 'a\n');
  server = await startOpenAiServer([sse.toolCall('read', {path: 'a.txt'}), sse.text('read it')]);
  const session = await openSession();
  await turn(session, 'read a');
  const plan = await session.planUndo();
  expect(plan.ok && plan.value.changes.map(c => `${c.status} ${c.path}`)).toEqual(['deleted hooked.txt']);
  await session.close();
});

test('after a conversation-only /rewind, the files of before an earlier turn that changed nothing can still come back', async () => {
  server = await startOpenAiServer([sse.text('just an answer'), ...writeTurn('a.txt', 'a\n'), ...writeTurn('b.txt', 'b\n')]);
  const session = await openSession();
  await turn(session, 'a question');
  await turn(session, 'write a');
  expect((await session.rewind(2, 'conversation')).ok).toBe(true);
  expect(await exists(join(root, 'a.txt'))).toBe(true);
  await turn(session, 'write b');
  expect(session.rewindPoints().map(point => [point.turn, point.files])).toEqual([[1, true], [2, true]]);
  // The same after a resume: the log replays to the same records.
  await session.close();
  const resumed = await openTestSession(sandbox, ['--base-url', server.url, '--approval-mode', 'yolo', '--continue']).then(opened => opened.session);
  expect(resumed.rewindPoints().map(point => [point.turn, point.files])).toEqual([[1, true], [2, true]]);
  expect(await resumed.rewind(1, 'files')).toMatchObject({ok: true});
  expect([await exists(join(root, 'a.txt')), await exists(join(root, 'b.txt'))]).toEqual([false, false]);
  await resumed.close();
});

test('print mode in ask with a Stop hook: a question-only turn does not stand in the way of /undo', async () => {
  await mkdir(join(sandbox.env['XDG_CONFIG_HOME']!, 'nib'), {recursive: true});
  await writeFile(join(sandbox.env['XDG_CONFIG_HOME']!, 'nib', 'config.json'), JSON.stringify({hooks: {Stop: [{hooks: [{type: 'command', command: 'true'}]}]}}));
  server = await startOpenAiServer([...writeTurn('a.txt', 'a\n'), sse.text('an answer')]);
  const first = await openSession();
  await turn(first, 'write a');
  await first.close();
  const printed = await openTestSession(sandbox, ['--base-url', server.url, '--approval-mode', 'ask', '--continue'], {canAsk: false});
  await printed.session.prompt('what is in a.txt?');
  await printed.session.close();
  const again = await openTestSession(sandbox, ['--base-url', server.url, '--approval-mode', 'yolo', '--continue']).then(opened => opened.session);
  const plan = await again.planUndo();
  expect(plan.ok ? plan.value.turn : plan.error).toBe(1);
  await again.close();
});

test('without git, /undo and /diff say git is what is missing', async () => {
  vi.spyOn(Snapshots, 'open').mockResolvedValue({ok: false, error: {code: 'no-git', message: 'Undo needs git on the PATH.'}} as never);
  server = await startOpenAiServer(writeTurn('a.txt', 'a\n'));
  const session = await openSession();
  try {
    await turn(session, 'write a');
    expect(await session.planUndo()).toEqual({ok: false, error: 'Undo needs git on the PATH.'});
    expect(await session.diff()).toEqual({ok: false, error: 'Undo needs git on the PATH.'});
  } finally {
    vi.restoreAllMocks();
    await session.close();
  }
});

test('/diff before nib has changed a file says so', async () => {
  await writeFile(join(root, 'keep.txt'), 'k\n');
  server = await startOpenAiServer([sse.text('an answer')]);
  const session = await openSession();
  await turn(session, 'a question');
  await session.prompt('!rm keep.txt');
  expect(await session.diff()).toEqual({ok: false, error: 'No snapshot yet: nib has not changed a file in this session.'});
  await session.close();
});

/**
 * The turn's undo point is taken by its first call that can change a file, or before its Stop
 * hooks (a slow `git add` in a large repository stands in here: every snapshot takes 400 ms).
 * Nothing may change a file before it is taken, and the turn is not over until it is.
 */
describe('the undo point taken before the first change', () => {
  afterEach(() => vi.restoreAllMocks());

  function slowSnapshots(options: {fail?: boolean} = {}) {
    const take = Snapshots.prototype.take;
    vi.spyOn(Snapshots.prototype, 'take').mockImplementation(async function (this: Snapshots, label: string) {
      await new Promise(resolve => setTimeout(resolve, 400));
      return options.fail ? {ok: false, error: {code: 'git-failed', message: 'git broke'}} : take.call(this, label);
    });
  }
  const planned = async (session: AgentSession) => {
    const plan = await session.planUndo();
    return plan.ok ? plan.value.changes.map(change => `${change.status} ${change.path}`) : plan.error;
  };

  test("a Stop hook's change comes after the undo point, so /undo takes it back", async () => {
    await mkdir(join(sandbox.env['XDG_CONFIG_HOME']!, 'nib'), {recursive: true});
    await writeFile(join(sandbox.env['XDG_CONFIG_HOME']!, 'nib', 'config.json'), JSON.stringify({hooks: {Stop: [{hooks: [{type: 'command', command: 'echo hooked > hooked.txt'}]}]}}));
    server = await startOpenAiServer([sse.text('Hi.')]);
    slowSnapshots();
    const session = await openSession();
    await session.prompt('hello');
    expect(await planned(session)).toEqual(['deleted hooked.txt']);
    await session.close();
  });

  test('a command typed right after an interrupted turn comes after that turn\'s undo point', async () => {
    // The call waits for the undo point, and the turn is stopped meanwhile.
    server = await startOpenAiServer([sse.toolCall('write', {path: 'n.txt', content: 'n\n'})]);
    slowSnapshots();
    const session = await openSession();
    const turned = session.prompt('hello');
    await new Promise(resolve => setTimeout(resolve, 100));
    session.interrupt();
    await turned;
    await session.prompt('!echo mine > mine.txt');
    expect(await planned(session)).toEqual(['deleted mine.txt']);
    await session.close();
  });

  test('/rewind offers the files of a turn that has just ended', async () => {
    server = await startOpenAiServer(writeTurn('n.txt', 'n\n', 'Hi.'));
    slowSnapshots();
    const session = await openSession();
    await session.prompt('hello');
    expect(session.rewindPoints().map(point => point.files)).toEqual([true]);
    await session.close();
  });

  test('a failed undo point is said with the turn, also in print mode', async () => {
    server = await startOpenAiServer(writeTurn('n.txt', 'n\n', 'Hi.'));
    slowSnapshots({fail: true});
    const {session} = await openTestSession(sandbox, ['--base-url', server.url, '--approval-mode', 'yolo'], {canAsk: false});
    const notices: string[] = [];
    session.subscribe((event: SessionEvent) => {
      if (event.type === 'notice') notices.push(event.text);
    });
    await session.prompt('hello');
    expect(notices.some(text => text.includes('git broke'))).toBe(true);
    await session.close();
  });
});
