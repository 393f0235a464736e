import {mkdir, readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import type {SessionEvent} from '../../../source/agent/session/agent-session.js';
import {startOpenAiServer, type OpenAiServer} from '../../support/openai-server.js';
import {createSandbox, openTestSession, type Sandbox} from '../../support/session.js';
import {sse} from '../../support/sse.js';

let sandbox: Sandbox;
let server: OpenAiServer | undefined;
const closers: Array<() => Promise<void>> = [];

beforeEach(async () => {
  sandbox = await createSandbox('nib-agent-session-');
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await server?.close();
  server = undefined;
  await sandbox.cleanup();
});

async function open(argv: string[] = [], options: {canAsk?: boolean} = {}) {
  const opened = await openTestSession(sandbox, ['--base-url', server!.url, ...argv], options);
  closers.push(() => opened.session.close());
  const events: SessionEvent[] = [];
  opened.session.subscribe(event => events.push(event));
  return {...opened, events};
}

async function writeConfig(config: Record<string, unknown>) {
  await mkdir(join(sandbox.env.XDG_CONFIG_HOME!, 'nib'), {recursive: true});
  await writeFile(join(sandbox.env.XDG_CONFIG_HOME!, 'nib', 'config.json'), JSON.stringify(config));
}

const usage = (promptTokens: number) => ({usage: {prompt_tokens: promptTokens, completion_tokens: 5, total_tokens: promptTokens + 5}});

test('an answer given as the approval request is reported, before the loop waits for it, is not lost', async () => {
  server = await startOpenAiServer([sse.toolCall('write', {path: 'new.txt', content: 'hello\n'}), sse.text('Wrote it.')]);
  const {session} = await open();
  // A person pressing `y` the moment the prompt is drawn answers before the session log is written
  // and before approve() is called.
  session.subscribe(event => {
    if (event.type === 'approval-request') session.answer(event.request.id, {kind: 'yes'});
  });
  expect(await session.prompt('write it')).toBe('completed');
  expect(await readFile(join(sandbox.workspace, 'new.txt'), 'utf8')).toBe('hello\n');
});

test('/model reaches auto-compaction: the summary is asked of the model switched to', async () => {
  // A window the system prompt and tools (about 1.8k tokens) fit in: a smaller one refuses every prompt.
  await writeConfig({contextWindow: 10_000, autoCompact: 0.5});
  server = await startOpenAiServer([
    sse.text('First answer.', usage(2000)),
    sse.text('Second answer.', usage(2100)),
    sse.text('Third answer, and now the context is nearly full.', usage(9000)),
    sse.text('Summary of the earlier turns.'),
    sse.text('Fourth answer.', usage(3000)),
  ]);
  const {session, events} = await open();
  for (const prompt of ['one', 'two', 'three']) await session.prompt(prompt);
  session.setModel('the-new-model');
  expect(await session.prompt('four')).toBe('completed');
  expect(events.some(event => event.type === 'compaction')).toBe(true);
  const summaryRequest = server.requests[3]!.body;
  expect(summaryRequest.tools ?? []).toEqual([]);
  expect(summaryRequest.model).toBe('the-new-model');
  expect(server.requests[4]!.body.model).toBe('the-new-model');
});

test('/compact makes the session busy: a prompt sent meanwhile is refused, not spliced away', async () => {
  server = await startOpenAiServer([
    sse.text('Answer one.'),
    sse.text('Answer two.'),
    sse.text('Answer three.'),
    sse.slow(sse.text('A summary of the first questions.', {chunkSize: 4}), 20),
    sse.text('After the compaction.'),
  ]);
  const {session, events} = await open();
  for (const prompt of ['first', 'second', 'third']) await session.prompt(prompt);
  const compacting = session.compact();
  expect(session.busy).toBe(true);
  expect(await session.prompt('sent while compacting')).toBe('busy');
  const compacted = await compacting;
  expect(compacted.ok).toBe(true);
  expect(events.filter(event => event.type === 'busy').at(-1)).toEqual({type: 'busy', busy: false});
  // The prompt, sent again once the session is free (the TUI's queue does it), joins the compacted history.
  expect(await session.prompt('sent while compacting')).toBe('completed');
  const sent = server.requests[4]!.body.messages.map(message => String(message.content));
  expect(sent.some(content => content.includes('A summary of the first questions.'))).toBe(true);
  expect(sent.at(-1)).toBe('sent while compacting');
  expect(session.history.at(-1)).toMatchObject({type: 'assistant-text', content: 'After the compaction.'});
});

test('an "always" kept as a rule for this session is among the grants the status bar shows', async () => {
  server = await startOpenAiServer([sse.toolCall('bash', {command: 'echo hi'}), sse.text('done')]);
  const {session, events} = await open(['--approval-mode', 'ask']);
  session.subscribe(event => {
    if (event.type === 'approval-request') session.answer(event.request.id, {kind: 'always', rules: ['bash(echo hi)'], scope: 'session'});
  });
  await session.prompt('run it');
  expect(events.filter(event => event.type === 'grants').at(-1)).toEqual({type: 'grants', tools: [], rules: ['bash(echo hi)']});
});

test('/clear takes back "always" answers and what the model had read', async () => {
  await writeFile(join(sandbox.workspace, 'a.txt'), 'one\n');
  server = await startOpenAiServer([
    sse.toolCall('read', {path: 'a.txt'}),
    sse.toolCall('bash', {command: 'true'}),
    sse.text('done'),
    sse.toolCall('write', {path: 'a.txt', content: 'two\n'}),
    sse.text('refused'),
  ]);
  const {session, events} = await open(['--approval-mode', 'yolo']);
  session.setMode('ask');
  session.subscribe(event => {
    if (event.type === 'approval-request') session.answer(event.request.id, {kind: 'always'});
  });
  await session.prompt('read then run');
  expect(events.filter(event => event.type === 'grants').at(-1)).toEqual({type: 'grants', tools: ['bash'], rules: []});

  expect((await session.clear()).ok).toBe(true);
  expect(events.filter(event => event.type === 'grants').at(-1)).toEqual({type: 'grants', tools: [], rules: []});
  session.setMode('yolo');
  await session.prompt('overwrite it');
  const result = server.requests[4]!.body.messages.at(-1)!;
  expect(result.role).toBe('tool');
  expect(String(result.content)).toMatch(/has not been read/);
  expect(await readFile(join(sandbox.workspace, 'a.txt'), 'utf8')).toBe('one\n');
});

test('tool output is masked for the API key and every *_KEY/*_TOKEN/*_SECRET value, as the session log is', async () => {
  sandbox.env.OPENAI_API_KEY = 'sk-session-test-123456';
  sandbox.env.GITHUB_TOKEN = 'ghp_session_987654';
  server = await startOpenAiServer([
    sse.toolCall('bash', {command: 'echo sk-session-test-123456 ghp_session_987654 visible'}),
    sse.text('ok'),
  ]);
  const {session} = await open(['--approval-mode', 'yolo'], {canAsk: false});
  await session.prompt('print them');
  const sent = String(server.requests[1]!.body.messages.at(-1)!.content);
  expect(sent).not.toContain('sk-session-test-123456');
  expect(sent).not.toContain('ghp_session_987654');
  expect(sent).toContain('visible');
});

// The prompt habits: what the model received.

const userTexts = (index: number) => server!.requests[index]!.body.messages.filter(message => message.role === 'user').map(message => String(message.content));

describe('@path', () => {
  test('the model gets the file, the screen the prompt as typed, and the model may then edit the file unread', async () => {
    await writeFile(join(sandbox.workspace, 'a.txt'), 'old line\n');
    server = await startOpenAiServer([sse.toolCall('edit', {path: 'a.txt', old_string: 'old', new_string: 'new'}), sse.text('Edited.')]);
    const {session, events} = await open(['--approval-mode', 'auto-edit']);
    expect(await session.prompt('fix @a.txt')).toBe('completed');
    expect(userTexts(0)[0]).toContain('<file path="a.txt">\n     1\told line\n</file>');
    expect(events.find(event => event.type === 'turn-start')).toMatchObject({prompt: 'fix @a.txt'});
    expect(await readFile(join(sandbox.workspace, 'a.txt'), 'utf8')).toBe('new line\n');
  });
});

describe('!command', () => {
  test('runs without a model call; the next prompt carries the command and its output', async () => {
    server = await startOpenAiServer([sse.text('I see the listing.')]);
    const {session, events} = await open();
    expect(await session.prompt('!echo out-$((1+1)); echo err >&2')).toBe('completed');
    expect(server.requests).toHaveLength(0);
    expect(events).toContainEqual(expect.objectContaining({type: 'notice', text: expect.stringMatching(/^\$ echo out-\$\(\(1\+1\)\); echo err >&2\nout-2\nerr\n/)}));
    expect(events.filter(event => event.type === 'busy').map(event => (event as {busy: boolean}).busy)).toEqual([true, false]);
    await session.prompt('what did it say?');
    const [sent] = userTexts(0);
    expect(sent).toMatch(/^The person ran this command in the workspace \(with !, not through you\):\n\$ echo out-\$\(\(1\+1\)\); echo err >&2\nout-2\nerr\n/);
    expect(sent!.endsWith('\n\nwhat did it say?')).toBe(true);
  });

  test('an @path in a command\'s output attaches nothing; one in the prompt does, said after the prompt', async () => {
    await writeFile(join(sandbox.workspace, 'a.txt'), 'secret-ish\n');
    server = await startOpenAiServer([sse.text('ok'), sse.text('ok')]);
    const {session, events} = await open();
    await session.prompt('!echo see @a.txt');
    await session.prompt('what did it say?');
    expect(userTexts(0)[0]).not.toContain('<file path="a.txt">');
    await session.prompt('and @a.txt?');
    expect(userTexts(1).at(-1)).toContain('<file path="a.txt">');
    const kinds = events.map(event => (event.type === 'notice' ? `notice:${event.text.split(':')[0]}` : event.type));
    const attached = kinds.lastIndexOf('notice:Attached for the model');
    expect(attached).toBeGreaterThan(kinds.lastIndexOf('turn-start'));
    expect(kinds.filter(kind => kind === 'notice:Attached for the model')).toHaveLength(1);
  });
});

describe('rewind', () => {
  test('conversation only: the history is cut at the prompt, the files stay, a resumed log agrees', async () => {
    server = await startOpenAiServer([
      sse.text('One.'),
      sse.toolCall('write', {path: 'b.txt', content: 'b\n'}),
      sse.text('Two.'),
      sse.text('Three.'),
    ]);
    const {session} = await open(['--approval-mode', 'yolo']);
    await session.prompt('first');
    await session.prompt('second @nothing-here');
    expect(session.rewindPoints().map(point => [point.turn, point.prompt])).toEqual([[1, 'first'], [2, 'second @nothing-here']]);
    const rewound = await session.rewind(2, 'conversation');
    expect(rewound).toEqual({ok: true, value: {prompt: 'second @nothing-here'}});
    expect(await readFile(join(sandbox.workspace, 'b.txt'), 'utf8')).toBe('b\n');
    await session.prompt('second, differently');
    expect(userTexts(3)).toEqual(['first', 'second, differently']);
    expect(session.rewindPoints().map(point => point.turn)).toEqual([1, 2]);
    await session.close();
    const resumed = await open(['--continue']);
    expect(resumed.session.history.filter(message => message.type === 'user').length).toBe(2);
    expect(resumed.session.rewindPoints().map(point => [point.turn, point.prompt])).toEqual([[1, 'first'], [2, 'second, differently']]);
  });

  test('files only: the conversation goes on and the model is told; an unknown turn is a clear error', async () => {
    server = await startOpenAiServer([sse.toolCall('write', {path: 'c.txt', content: 'c\n'}), sse.text('Made c.'), sse.text('Ok.')]);
    const {session} = await open(['--approval-mode', 'yolo']);
    await session.prompt('make c');
    expect(await session.rewind(7, 'both')).toEqual({ok: false, error: expect.stringContaining('Turn 7 is not in the conversation')});
    expect(await session.rewind(1, 'files')).toMatchObject({ok: true});
    await expect(readFile(join(sandbox.workspace, 'c.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    await session.prompt('and now?');
    expect(userTexts(2)).toEqual(['make c', 'and now?']);
    expect(String(server.requests[2]!.body.messages[0]!.content)).toMatch(/undid turn 1/i);
  });
});

test('a prompt sent while a UserPromptSubmit hook runs is refused as busy; Esc during the hook stops the turn', async () => {
  await writeConfig({hooks: {UserPromptSubmit: [{hooks: [{type: 'command', command: 'sleep 1'}]}]}});
  server = await startOpenAiServer([sse.text('Answer to A.')]);
  const {session} = await open();
  const first = session.prompt('prompt A');
  // The hook is still running: the session is already held, so B cannot start a second turn.
  expect(session.busy).toBe(true);
  expect(await session.prompt('prompt B')).toBe('busy');
  expect(await first).toBe('completed');
  expect(server.requests).toHaveLength(1);
  expect(server.requests[0]!.body.messages.filter(m => m.role === 'user').map(m => m.content)).toEqual(['prompt A']);

  const second = session.prompt('prompt C');
  session.interrupt();
  expect(await second).toBe('aborted');
  expect(server.requests).toHaveLength(1);
});

test('Esc stops /compact: the request is dropped and the conversation is as it was', async () => {
  server = await startOpenAiServer([sse.text('Answer one.'), sse.text('Answer two.'), sse.text('Answer three.'), sse.stall()]);
  const {session} = await open();
  for (const prompt of ['first', 'second', 'third']) await session.prompt(prompt);
  const before = [...session.history];
  const compacting = session.compact();
  await server.waitForRequests(4);
  session.interrupt();
  const result = await compacting;
  expect(result).toEqual({ok: false, error: 'Compaction interrupted; the conversation is as it was.'});
  expect(session.busy).toBe(false);
  expect(session.history).toEqual(before);
});

test('what the session reports before anyone listens reaches its first listener', async () => {
  server = await startOpenAiServer([]);
  const {session} = await openTestSession(sandbox, ['--base-url', server.url]);
  closers.push(() => session.close());
  // The TUI reads startEvents() when it mounts and subscribes a moment later; a notice from the
  // background (the server's window) can land in between.
  session.setMode('yolo');
  const seen: SessionEvent[] = [];
  session.subscribe(event => seen.push(event));
  expect(seen).toContainEqual({type: 'mode', mode: 'yolo'});
  const later: SessionEvent[] = [];
  session.subscribe(event => later.push(event));
  expect(later).toEqual([]);
});

test('/compact on a small window sends summary requests that fit it, as automatic compaction does', async () => {
  const long = 'x'.repeat(6_000);
  server = await startOpenAiServer([
    ...Array.from({length: 30}, () => sse.text(`A long answer. ${long}`)),
    ...Array.from({length: 20}, () => sse.text('Summary of the part.')),
  ]);
  await writeConfig({model: 'nib-test-model', contextWindow: 4096, autoCompact: false});
  const {session} = await open();
  for (let turn = 0; turn < 30; turn++) await session.prompt(`question ${turn}`);
  const before = server.requests.length;
  const result = await session.compact();
  expect(result.ok).toBe(true);
  const summaries = server.requests.slice(before);
  expect(summaries.length).toBeGreaterThan(1);
  // Each request's characters stay within what a 4,096-token window holds (~4 characters a token).
  for (const request of summaries) expect(JSON.stringify(request.body.messages).length).toBeLessThan(4096 * 4);
});

test('an AGENTS.md written or edited during the session reaches the model from the next prompt, and nib says so', async () => {
  server = await startOpenAiServer([sse.text('one'), sse.text('two'), sse.text('three')]);
  const {session, events} = await open();
  await session.prompt('first');
  const system = (index: number) => String(server!.requests[index]!.body.messages[0]!.content);
  expect(system(0)).not.toContain('always say banana');
  // As /init's write would leave it.
  await writeFile(join(sandbox.workspace, 'AGENTS.md'), '# rules\nalways say banana\n');
  await session.prompt('second');
  expect(system(1)).toContain('always say banana');
  expect(events).toContainEqual(expect.objectContaining({type: 'notice', text: 'Instructions changed (AGENTS.md): the model has them from this prompt on.'}));
  const notices = () => events.filter(event => event.type === 'notice' && event.text.startsWith('Instructions changed')).length;
  await session.prompt('third');
  expect(system(2)).toContain('always say banana');
  expect(notices()).toBe(1);
});

test('instructions that grow during the session are counted: the fit check and /context see the new system prompt', async () => {
  await writeConfig({contextWindow: 8192, autoCompact: false});
  server = await startOpenAiServer([sse.text('one', {usage: {prompt_tokens: 1880, completion_tokens: 1, total_tokens: 1881}}), sse.text('two')], {persona: {kind: 'llama.cpp', window: 8192}});
  const {session, events} = await open();
  await session.prompt('first');
  // About 7k tokens of rules, as a long AGENTS.md written by /init.
  await writeFile(join(sandbox.workspace, 'AGENTS.md'), `# rules\n${'Always check the tests before editing any file. '.repeat(600)}\n`);
  await session.prompt('second');
  expect(server.requests.filter(request => request.overWindow)).toHaveLength(0);
  // Not sent: the new system prompt alone takes more than the window holds.
  expect(events).toContainEqual(expect.objectContaining({type: 'error', code: 'prompt-too-long', message: expect.stringMatching(/the system prompt and tools take \d+(\.\d)?k of it/)}));
  expect(session.window.tracker.fixedTokens(session.history)).toBeGreaterThan(8192);
});

test('/rewind names each prompt by its own turn, also after a !command and a prompt taken back, and after resume', async () => {
  server = await startOpenAiServer([sse.toolCall('write', {path: 'one.txt', content: '1\n'}), sse.text('one'), sse.text('three')], {persona: {kind: 'llama.cpp', window: 4096}});
  const {session} = await open(['--approval-mode', 'yolo']);
  await session.prompt('first');
  await session.prompt('!echo hi');
  // Over the window: refused before it is sent, and taken back.
  await session.prompt('x'.repeat(40_000));
  await session.prompt('third');
  const points = () => session.rewindPoints().map(point => [point.turn, point.prompt.slice(0, 20)]);
  // The refused prompt had turn 2 (a !command is no turn of the model's).
  expect(points()).toEqual([[1, 'first'], [3, 'third']]);
  // The first turn wrote a file, so its files can come back; the third changed none.
  expect(session.rewindPoints().map(point => point.files)).toEqual([true, false]);
  await session.close();
  const resumed = await open(['--continue']);
  expect(resumed.session.rewindPoints().map(point => [point.turn, point.prompt.slice(0, 20)])).toEqual([[1, 'first'], [3, 'third']]);
});

test('a prompt stopped before it was sent ends with its turn-end, as every turn does', async () => {
  server = await startOpenAiServer([sse.text('never')]);
  const {session, events} = await open();
  const controller = new AbortController();
  controller.abort();
  expect(await session.prompt('too late', {signal: controller.signal})).toBe('aborted');
  expect(server.requests).toHaveLength(0);
  const tail = events.filter(event => event.type === 'notice' || event.type === 'turn-end').slice(-2);
  expect(tail).toEqual([expect.objectContaining({type: 'notice', text: 'Interrupted before the prompt was sent.'}), expect.objectContaining({type: 'turn-end', reason: 'aborted'})]);
});
