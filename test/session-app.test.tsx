import {access, chmod, readFile, stat, writeFile} from 'node:fs/promises';
import {dirname, join} from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {listSessions} from '../source/agent/session/saved.js';
import {keys} from './components/helpers.js';
import {waitFor} from './support/wait-for.js';
import {startOpenAiServer, type OpenAiServer, type Script} from './support/openai-server.js';
import {renderApp} from './support/render-app.js';
import {createSandbox, openTestSession, type Sandbox} from './support/session.js';
import {sse} from './support/sse.js';

let sandbox: Sandbox;
let root: string;
let server: OpenAiServer | undefined;
let unmount: (() => Promise<void>) | undefined;

beforeEach(async () => {
  sandbox = await createSandbox('nib-session-app-');
  root = sandbox.workspace;
});
afterEach(async () => {
  await unmount?.();
  unmount = undefined;
  await server?.close();
  server = undefined;
  await sandbox.cleanup();
});

const exists = (path: string) => access(path).then(() => true, () => false);

/** The app as runInteractive builds it, with a real session, against the loopback server. */
async function start(script: Script, argv: string[] = []) {
  server = await startOpenAiServer(script, {validate: true});
  const {session} = await openTestSession(sandbox, ['--base-url', server.url, '--approval-mode', 'yolo', ...argv]);
  const app = await renderApp(session, {historyFile: join(sandbox.root, 'state', 'history'), openPicker: argv.includes('--resume')});
  unmount = async () => {
    app.unmount();
    await session.close();
  };
  return {...app, session};
}

test('/undo in the app: shows the diff, asks, and restores an edit, a new file and a bash rm', async () => {
  await writeFile(join(root, 'notes.md'), 'first line\nsecond line\n');
  await writeFile(join(root, 'tool.sh'), '#!/bin/sh\necho hi\n');
  await chmod(join(root, 'tool.sh'), 0o755);
  const app = await start([
    sse.toolCall('read', {path: 'notes.md'}),
    sse.toolCalls([
      {name: 'edit', arguments: {path: 'notes.md', old_string: 'second line', new_string: 'SECOND LINE'}},
      {name: 'write', arguments: {path: 'new.txt', content: 'brand new\n'}},
      {name: 'bash', arguments: {command: 'rm tool.sh'}},
    ]),
    sse.text('All three done.'),
  ]);
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  await app.type('change things', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('All three done.'));
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  expect(await exists(join(root, 'tool.sh'))).toBe(false);

  await app.type('/undo', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('Undo turn 1: 3 files change'));
  expect(app.screen()).toContain('+second line');
  await waitFor(() => expect(app.screen()).toContain('y restore · n keep'));
  // The status bar does not offer the prompt's keys while the dialog has the keyboard.
  expect(app.screen()).not.toContain('enter send');
  await app.type('y');
  await waitFor(() => expect(app.everything()).toContain('Undid turn 1: 2 file(s) restored, 1 deleted.'));
  expect(await readFile(join(root, 'notes.md'), 'utf8')).toBe('first line\nsecond line\n');
  expect(await readFile(join(root, 'tool.sh'), 'utf8')).toBe('#!/bin/sh\necho hi\n');
  expect((await stat(join(root, 'tool.sh'))).mode & 0o111).toBe(0o111);
  expect(await exists(join(root, 'new.txt'))).toBe(false);
  // The model is told, through the system message, that its changes are gone.
  expect(app.session.history[0]!.content).toMatch(/undid turn 1/);
});

test('--continue re-renders the transcript from the log and the next request carries the history', async () => {
  const first = await start([sse.text('The capital is Paris.')]);
  await waitFor(() => expect(first.screen()).toContain('enter send'));
  await first.type('capital of France?', keys.enter);
  await waitFor(() => expect(first.screen()).toContain('The capital is Paris.'));
  await waitFor(() => expect(first.screen()).toContain('enter send'));
  await unmount?.();
  await server?.close();

  const second = await start([sse.text('About 68 million.')], ['--continue']);
  await waitFor(() => expect(second.everything()).toContain('Resumed session'));
  expect(second.everything()).toContain('capital of France?');
  expect(second.everything()).toContain('The capital is Paris.');
  // The loopback server does not say its window: the bar says so rather than guess a percentage.
  expect(second.screen()).toContain("(ctx window unknown)");
  await second.type('and its population?', keys.enter);
  await waitFor(() => expect(second.screen()).toContain('About 68 million.'));
  await waitFor(() => expect(second.screen()).toContain('enter send')); // the turn's last snapshot is done
  const sent = server!.requests[0]!.body.messages.map(m => m.content);
  expect(sent.slice(1)).toEqual(['capital of France?', 'The capital is Paris.', 'and its population?']);
});

test('--resume opens the picker; enter resumes the chosen session', async () => {
  const first = await start([sse.text('one answer')]);
  await waitFor(() => expect(first.screen()).toContain('enter send'));
  await first.type('the first session', keys.enter);
  await waitFor(() => expect(first.screen()).toContain('one answer'));
  await waitFor(() => expect(first.screen()).toContain('enter send'));
  await unmount?.();
  await server?.close();

  const second = await start([sse.text('two')], ['--resume']);
  await waitFor(() => expect(second.screen()).toContain('Resume a session (1)'));
  expect(second.screen()).toContain('the first session');
  expect(second.screen()).toContain('esc new session');
  // Enter counts once the list has been on screen a moment (a typed-ahead one opens nothing).
  await waitFor(() => expect(second.screen()).toContain('enter resume'));
  await second.type(keys.enter);
  await waitFor(() => expect(second.everything()).toContain('one answer'));
  await waitFor(() => expect(second.screen()).toContain('enter send'));
  await second.type('/sessions', keys.enter);
  await waitFor(() => expect(second.everything()).toContain('Sessions in this workspace'));
  // From inside a session, Esc goes back to it rather than to a new one.
  await second.type('/resume', keys.enter);
  await waitFor(() => expect(second.screen()).toContain('esc back to this session'));
  await second.type(keys.escape);
  await waitFor(() => expect(second.screen()).toContain('enter send'));
});

test('/clear goes on in a new session log; the old one stays whole', async () => {
  const app = await start([sse.text('first answer'), sse.text('second answer')]);
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  await app.type('before clear', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('first answer'));
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  const before = app.session.logPath;
  await app.type('/clear', keys.enter);
  await waitFor(() => expect(app.session.logPath).not.toBe(before));
  await waitFor(() => expect(app.screen()).toContain('New conversation. The one before is kept: /resume lists it.'));
  await app.type('after clear', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('second answer'));
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  expect(server!.requests[1]!.body.messages.map(m => m.content).slice(1)).toEqual(['after clear']);
  const sessions = await listSessions(dirname(app.session.logPath));
  expect(sessions.map(s => s.firstPrompt).sort()).toEqual(['after clear', 'before clear']);
});

test('/compact summarises the older turns through the model; the next request carries the summary', async () => {
  const app = await start([
    sse.text('Answer one, with some detail about the first question.'),
    sse.text('Answer two, with some detail about the second question.'),
    sse.text('Answer three.'),
    sse.text('They asked two questions about the project and got detailed answers.'),
    sse.text('After compaction.'),
  ]);
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  for (const [prompt, answer] of [['first question', 'Answer one'], ['second question', 'Answer two'], ['third question', 'Answer three.']] as const) {
    await app.type(prompt, keys.enter);
    await waitFor(() => expect(app.screen()).toContain(answer));
    await waitFor(() => expect(app.screen()).toContain('enter send'));
  }
  await app.type('/compact', keys.enter);
  await waitFor(() => expect(app.everything()).toMatch(/Compacted: \d+ messages summarised/));
  const summaryRequest = server!.requests[3]!.body;
  expect(summaryRequest.messages[1]!.content).toContain('[user]\nfirst question');
  expect(summaryRequest.tools ?? []).toEqual([]);

  await app.type('go on', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('After compaction.'));
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  const next = server!.requests[4]!.body.messages.map(m => String(m.content));
  expect(next.some(content => content.includes('They asked two questions'))).toBe(true);
  expect(next.some(content => content === 'first question')).toBe(false);
  expect(next.at(-1)).toBe('go on');
});

test('a prompt typed while /compact runs waits in the queue and goes out after, with the summary', async () => {
  const app = await start([
    sse.text('Answer one.'),
    sse.text('Answer two.'),
    sse.text('Answer three.'),
    sse.slow(sse.text('A summary of the first three questions.', {chunkSize: 3}), 40),
    sse.text('Answered after the compaction.'),
  ]);
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  for (const [prompt, answer] of [['first', 'Answer one.'], ['second', 'Answer two.'], ['third', 'Answer three.']] as const) {
    await app.type(prompt, keys.enter);
    await waitFor(() => expect(app.screen()).toContain(answer));
    await waitFor(() => expect(app.screen()).toContain('enter send'));
  }
  await app.type('/compact', keys.enter);
  await waitFor(() => expect(app.everything()).toContain('Compacting'));
  await app.type('typed meanwhile', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('queued: typed meanwhile'));
  await waitFor(() => expect(app.screen()).toContain('Answered after the compaction.'));
  const sent = server!.requests[4]!.body.messages.map(m => String(m.content));
  expect(sent.some(content => content.includes('A summary of the first three questions.'))).toBe(true);
  expect(sent.at(-1)).toBe('typed meanwhile');
  expect(app.session.history.at(-1)).toMatchObject({content: 'Answered after the compaction.'});
});
