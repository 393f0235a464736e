import {chmod, mkdtemp, readFile, realpath, rm, stat, writeFile, access} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import type {AgentEvent} from '../../../source/core/events.js';
import {runAgent} from '../../../source/agent/loop.js';
import type {Message} from '../../../source/core/messages.js';
import {createProvider} from '../../../source/agent/provider/client.js';
import {loadSession} from '../../../source/agent/session/log.js';
import {WorkspaceSession} from '../../../source/agent/session/workspace.js';
import {createToolSession, defaultRegistry} from '../../../source/tools/index.js';
import {startOpenAiServer, type OpenAiServer} from '../../support/openai-server.js';
import {sse} from '../../support/sse.js';

let base: string;
let root: string;
let env: NodeJS.ProcessEnv;
let server: OpenAiServer | undefined;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'nib-undo-')));
  root = join(base, 'work');
  await import('node:fs/promises').then(fs => fs.mkdir(root));
  env = {XDG_DATA_HOME: join(base, 'data'), XDG_CONFIG_HOME: join(base, 'config'), HOME: base};
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(base, {recursive: true, force: true, maxRetries: 5});
});

const exists = (path: string) => access(path).then(() => true, () => false);

async function openSession() {
  return WorkspaceSession.open({
    cwd: root,
    model: 'nib-test-model',
    apiKey: 'sk-test-undo-key',
    choice: {kind: 'new'},
    retentionDays: 30,
    contextWindow: 128_000,
    autoCompact: 0.8,
    env,
  });
}

/** One user turn through the real loop and tools, recorded by the session as the app does it. */
async function turn(session: WorkspaceSession, history: Message[], prompt: string) {
  const provider = createProvider({baseURL: server!.url, apiKey: 'sk-test-undo-key', model: 'nib-test-model', maxAttempts: 1});
  await session.beforeTurn('yolo');
  const events: AgentEvent[] = [];
  for await (const event of runAgent({
    provider,
    tools: defaultRegistry,
    context: {root, session: createToolSession()},
    history,
    prompt,
    mode: () => 'yolo',
    approve: async () => ({kind: 'yes'}),
    canAsk: false,
    alwaysAllowed: new Set(),
    compaction: session.compaction(provider),
    signal: new AbortController().signal,
  })) {
    events.push(event);
    await session.observe(event, history.length);
  }
  await session.afterTurn('yolo');
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
  const history: Message[] = [{type: 'system', content: 'test'}];
  const events = await turn(session, history, 'do three things');
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
  expect(session.takeUndoNote()).toMatch(/undid turn 1/);

  // Nothing left to undo, and the log remembers that on resume.
  expect((await session.planUndo()).ok).toBe(false);
  await session.close();
  const loaded = await loadSession(session.log.path);
  expect(loaded.ok && loaded.value.snapshots).toEqual([]);
});

test('/undo warns about a file the person changed after the turn; /diff shows the whole session', async () => {
  await writeFile(join(root, 'a.txt'), 'original\n');
  server = await startOpenAiServer([
    sse.toolCall('write', {path: 'a.txt', content: 'by the agent\n'}),
    sse.text('ok'),
    sse.toolCall('write', {path: 'b.txt', content: 'second turn\n'}),
    sse.text('ok'),
  ]);
  const session = await openSession();
  const history: Message[] = [{type: 'system', content: 'test'}];
  await turn(session, history, 'first');
  await turn(session, history, 'second');
  await writeFile(join(root, 'a.txt'), 'the person edited this\n');

  const diff = await session.diffSinceStart();
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
