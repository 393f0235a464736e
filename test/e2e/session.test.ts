import {mkdir, readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {dataDir, sessionsDir} from '../../source/agent/session/log.js';
import {latestSession, listSessions} from '../../source/agent/session/saved.js';
import {historyProblem, startOpenAiServer, type OpenAiServer} from '../support/openai-server.js';
import {TEST_API_KEY, createSandbox, filesContaining, runNib, startNib, type Sandbox} from '../support/nib-process.js';
import {sse} from '../support/sse.js';

let sandbox: Sandbox;
let servers: OpenAiServer[] = [];
beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(async () => {
  await Promise.all(servers.map(server => server.close()));
  servers = [];
  await sandbox.cleanup();
});

async function server(script: Parameters<typeof startOpenAiServer>[0]) {
  const started = await startOpenAiServer(script, {validate: true});
  servers.push(started);
  return started;
}

const args = (url: string, ...rest: string[]) => ['--base-url', url, '--model', 'nib-test-model', ...rest];
const sessionDir = () => sessionsDir(dataDir(sandbox.env), sandbox.workspace);

/** Polls the file system until `check` holds (a file nib writes has no event to wait on). */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise(resolve => setTimeout(resolve, 20));
  }
}

async function sessionText(): Promise<string> {
  const path = await latestSession(sessionDir());
  return path ? readFile(path, 'utf8') : '';
}

test('-p then --continue -p carries the conversation; --resume ID picks a session', async () => {
  const first = await server([sse.text('Noted: the answer is 42.')]);
  const one = await runNib(sandbox, args(first.url, '-p', 'remember 42'));
  expect(one.code).toBe(0);

  const second = await server([sse.text('It was 42.')]);
  const two = await runNib(sandbox, args(second.url, '--continue', '-p', 'what was it?'));
  expect(two.code).toBe(0);
  expect(two.stdout).toBe('It was 42.');
  const messages = second.requests[0]!.body.messages.map(m => [m.role, m.content]);
  expect(messages.slice(1)).toEqual([
    ['user', 'remember 42'],
    ['assistant', 'Noted: the answer is 42.'],
    ['user', 'what was it?'],
  ]);

  const fresh = await server([sse.text('new one')]);
  expect((await runNib(sandbox, args(fresh.url, '-p', 'unrelated'))).code).toBe(0);
  // Ids sort by the second they were made in; two runs can share one, so find it by its prompt.
  const firstId = (await listSessions(sessionDir())).find(s => s.firstPrompt === 'remember 42')!.id;
  const third = await server([sse.text('ok')]);
  const three = await runNib(sandbox, args(third.url, '--resume', firstId, '-p', 'again'));
  expect(three.code).toBe(0);
  expect(third.requests[0]!.body.messages.map(m => m.content)).toContain('what was it?');

  const listed = await runNib(sandbox, args(third.url, '--resume', '-p', 'x'));
  expect(listed.code).toBe(1);
  expect(listed.stderr).toContain('remember 42');
  expect(listed.stderr).toContain('unrelated');
});

test('a turn that failed before any answer, then --continue: the two prompts go as one user message, so the roles alternate', async () => {
  const first = await server([sse.unauthorized()]);
  const one = await runNib(sandbox, args(first.url, '-p', 'first try'));
  expect(one.code).toBe(1);
  const second = await server([sse.text('Answered both.')]);
  const two = await runNib(sandbox, args(second.url, '--continue', '-p', 'second try'));
  expect(two).toMatchObject({code: 0, stdout: 'Answered both.'});
  const messages = second.requests[0]!.body.messages.map(m => [m.role, m.content]);
  expect(messages.slice(1)).toEqual([['user', 'first try\n\nsecond try']]);
});

test('--continue -p says what is new on stderr, not the notices of earlier runs again', async () => {
  const first = await server([sse.text('Noted.')]);
  expect((await runNib(sandbox, args(first.url, '-p', 'remember 42'))).code).toBe(0);
  const path = (await latestSession(sessionDir()))!;
  // As a compaction in an earlier run leaves it (the summary stands for the same conversation).
  const history = [{type: 'user', content: 'remember 42'}, {type: 'assistant-text', content: 'Noted.'}];
  await writeFile(path, `${await readFile(path, 'utf8')}${JSON.stringify({type: 'compaction', at: Date.now(), history, summary: 'They said 42.'})}\n`);
  const second = await server([sse.text('It was 42.')]);
  const two = await runNib(sandbox, args(second.url, '--continue', '-p', 'what was it?'));
  expect(two.code).toBe(0);
  expect(two.stderr).not.toContain('Context compacted');
  expect(two.stderr).toMatch(/Resumed session \S+ \(1 turn\)\./);
});

test('kill -9 mid-stream, then --continue: history up to the last complete event, and a valid next request', async () => {
  await writeFile(join(sandbox.workspace, 'notes.txt'), 'alpha\nbeta\n');
  const answer = sse.text('This answer never fin'.repeat(20));
  // Headers and a few deltas, then silence: nib is mid-stream when it is killed.
  const first = await server([sse.toolCall('read', {path: 'notes.txt'}), sse.stall(answer, answer.frames.slice(0, 4).join('').length)]);
  const nib = startNib(sandbox, args(first.url, '-p', 'read my notes'));
  await nib.waitForStdout(out => out.length > 0);
  nib.child.kill('SIGKILL');
  const killed = await nib.done;
  expect(killed.signal).toBe('SIGKILL');

  const next = await server([sse.text('Picking up.')]);
  const resumed = await runNib(sandbox, args(next.url, '--continue', '-p', 'go on'));
  expect(resumed.code).toBe(0);
  expect(resumed.stdout).toBe('Picking up.');
  expect(next.requests).toHaveLength(1); // the validator did not reject it
  const sent = next.requests[0]!.body.messages;
  expect(historyProblem(sent)).toBeNull();
  expect(sent.map(m => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
  expect(sent[3]!.content).toContain('alpha');
  expect(sent.some(m => String(m.content).includes('never fin'))).toBe(false);
});

test('kill -9 while a tool runs: the call is answered as interrupted on --continue', async () => {
  const first = await server([sse.toolCall('bash', {command: 'sleep 5'})]);
  const nib = startNib(sandbox, args(first.url, '--approval-mode', 'yolo', '-p', 'wait a bit'));
  // The call is on disk before the tool starts (observe flushes at tool-start).
  await until(async () => (await sessionText()).includes('"assistant-tool-calls"'), 'the tool call in the session log');
  nib.child.kill('SIGKILL');
  await nib.done;

  const next = await server([sse.text('ok')]);
  const resumed = await runNib(sandbox, args(next.url, '--continue', '-p', 'and now?'));
  expect(resumed.code).toBe(0);
  expect(next.requests).toHaveLength(1);
  const sent = next.requests[0]!.body.messages;
  expect(historyProblem(sent)).toBeNull();
  expect(sent.map(m => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
  expect(sent[3]!.content).toMatch(/interrupted/i);
});

test('a torn last line loads; a session file that is not JSON gets a clear message and nib still runs', async () => {
  const first = await server([sse.text('one')]);
  expect((await runNib(sandbox, args(first.url, '-p', 'first prompt'))).code).toBe(0);
  const path = (await latestSession(sessionDir()))!;
  await writeFile(path, (await readFile(path, 'utf8')) + '{"type":"message","at":1,"message":{"ty');
  const second = await server([sse.text('two')]);
  const torn = await runNib(sandbox, args(second.url, '--continue', '-p', 'second'));
  expect(torn.code).toBe(0);
  expect(torn.stderr).toMatch(/cut off/);
  expect(second.requests[0]!.body.messages.map(m => m.content)).toContain('first prompt');

  await mkdir(sessionDir(), {recursive: true});
  const junk = join(sessionDir(), 'zzzz-not-a-session.jsonl');
  await writeFile(junk, 'PK\u0003\u0004 this is a zip file, not JSON');
  const third = await server([sse.text('fresh start')]);
  const broken = await runNib(sandbox, args(third.url, '--continue', '-p', 'hello'));
  expect(broken.code).toBe(0);
  expect(broken.stdout).toBe('fresh start');
  expect(broken.stderr).toContain(`${junk} is not a nib session log`);
  expect(broken.stderr).toContain('Starting a new session');
  expect(third.requests[0]!.body.messages.map(m => m.role)).toEqual(['system', 'user']);
});

test('the API key and *_TOKEN values reach no file nib wrote', async () => {
  const token = 'tok-9f8e7d6c5b4a-secret-value';
  await writeFile(join(sandbox.workspace, 'AGENTS.md'), 'Be brief.\n');
  const first = await server([
    sse.toolCall('bash', {command: 'echo "$FOO_TOKEN and $OPENAI_API_KEY"'}),
    sse.text(`I saw ${token} and ${TEST_API_KEY}.`),
  ]);
  const run = await runNib(sandbox, args(first.url, '--approval-mode', 'yolo', '-p', `my token is ${token}, key ${TEST_API_KEY}`), {
    env: {FOO_TOKEN: token},
  });
  expect(run.code).toBe(0);
  // The secrets did go through the conversation (so the check below means something)...
  const sent = first.requests[1]!.body.messages;
  expect(sent.find(message => message.role === 'user')!.content).toContain(token);
  // ...and what a command printed reaches the model masked, as it reaches the log.
  expect(sent.at(-1)!.content).toContain('[redacted:FOO_TOKEN]');
  expect(sent.at(-1)!.content).not.toContain(token);
  expect(await sessionText()).toContain('[redacted:FOO_TOKEN]');
  // ...and never reached a byte of anything nib wrote.
  expect(await filesContaining(sandbox.root, token)).toEqual([]);
  expect(await filesContaining(sandbox.root, TEST_API_KEY)).toEqual([]);
});

test('a data dir nib cannot write to costs resume, not the answer', async () => {
  const blocked = join(sandbox.root, 'not-a-dir');
  await writeFile(blocked, 'a file where the data dir should be');
  const first = await server([sse.text('still answered')]);
  const run = await runNib(sandbox, args(first.url, '-p', 'hi'), {env: {XDG_DATA_HOME: blocked}});
  expect(run.code).toBe(0);
  expect(run.stdout).toBe('still answered');
  expect(run.stderr).toMatch(/session log .* could not be written/);
});
