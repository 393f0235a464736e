import {readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import type {SessionEvent} from '../../../source/agent/session/agent-session.js';
import {startOpenAiServer, type OpenAiServer} from '../../support/openai-server.js';
import {createSandbox, openTestSession, type Sandbox} from '../../support/session.js';
import {sse} from '../../support/sse.js';

// AgentSession with the prompt habits, against the loopback server: what the model received.

let sandbox: Sandbox;
let server: OpenAiServer | undefined;
const closers: Array<() => Promise<void>> = [];

beforeEach(async () => {
  sandbox = await createSandbox('nib-prompt-habits-');
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await server?.close();
  server = undefined;
  await sandbox.remove();
});

async function open(argv: string[] = []) {
  const opened = await openTestSession(sandbox, ['--base-url', server!.url, ...argv]);
  closers.push(() => opened.session.close());
  const events: SessionEvent[] = [];
  opened.session.subscribe(event => events.push(event));
  return {...opened, events};
}

const userTexts = (index: number) => server!.requests[index]!.body.messages.filter(message => message.role === 'user').map(message => String(message.content));

describe('@path', () => {
  test('the model gets the file, the screen the prompt as typed, and the model may then edit the file unread', async () => {
    await writeFile(join(sandbox.root, 'a.txt'), 'old line\n');
    server = await startOpenAiServer([sse.toolCall('edit', {path: 'a.txt', old_string: 'old', new_string: 'new'}), sse.text('Edited.')]);
    const {session, events} = await open(['--approval-mode', 'auto-edit']);
    expect(await session.prompt('fix @a.txt')).toBe('completed');
    expect(userTexts(0)[0]).toContain('<file path="a.txt">\n     1\told line\n</file>');
    expect(events.find(event => event.type === 'turn-start')).toMatchObject({prompt: 'fix @a.txt'});
    expect(await readFile(join(sandbox.root, 'a.txt'), 'utf8')).toBe('new line\n');
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
    expect(await readFile(join(sandbox.root, 'b.txt'), 'utf8')).toBe('b\n');
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
    await expect(readFile(join(sandbox.root, 'c.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    await session.prompt('and now?');
    expect(userTexts(2)).toEqual(['make c', 'and now?']);
    expect(String(server.requests[2]!.body.messages[0]!.content)).toMatch(/undid turn 1/i);
  });
});
