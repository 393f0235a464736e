import {mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {runAgent} from '../../source/agent/loop.js';
import {createProvider} from '../../source/agent/provider/client.js';
import type {AgentEvent} from '../../source/core/events.js';
import {createReadLedger, createToolRegistry, editTool, readTool, writeTool} from '../../source/tools/index.js';
import {startOpenAiServer, type OpenAiServer, type Script} from '../support/openai-server.js';
import {sse} from '../support/sse.js';

// The window between the approval check and the write, through the loop as a session runs it:
// the person is asked (the check and the preview are done), and meanwhile the file becomes a
// link to a file outside the workspace.

let root: string;
let server: OpenAiServer | undefined;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'nib-race-')));
  await mkdir(join(root, 'ws'));
  await mkdir(join(root, 'out'));
  await writeFile(join(root, 'out', 'secret.txt'), 'secret\n');
});
afterEach(async () => {
  await server?.close();
  await rm(root, {recursive: true, force: true});
});

async function turn(script: Script, swap: () => Promise<void>): Promise<AgentEvent[]> {
  server = await startOpenAiServer(script);
  const events: AgentEvent[] = [];
  for await (const event of runAgent({
    provider: createProvider({baseURL: server.url, apiKey: 'test-key', model: 'test-model', idleTimeoutMs: 5000}),
    tools: createToolRegistry([readTool, writeTool, editTool]),
    context: {root: join(root, 'ws'), ledger: createReadLedger()},
    history: [{type: 'system', content: 'test'}],
    prompt: 'go',
    mode: () => 'ask',
    approve: async request => {
      if (request.name !== 'read') await swap();
      return {kind: 'yes'};
    },
    canAsk: true,
    alwaysAllowed: new Set(),
    signal: new AbortController().signal,
  })) {
    events.push(event);
  }
  return events;
}

const results = (events: AgentEvent[]) => events.flatMap(event => (event.type === 'tool-result' ? [event.content] : []));

test('a file swapped for a link to outside while the person approves a write: the outside file is untouched, though it was read', async () => {
  await writeFile(join(root, 'ws', 'victim.txt'), 'mine\n');
  const events = await turn(
    [
      sse.toolCall('read', {path: 'victim.txt'}),
      sse.toolCall('read', {path: join(root, 'out', 'secret.txt')}),
      sse.toolCall('write', {path: 'victim.txt', content: 'PWNED\n'}),
      sse.text('done'),
    ],
    async () => {
      await rm(join(root, 'ws', 'victim.txt'));
      await symlink(join(root, 'out', 'secret.txt'), join(root, 'ws', 'victim.txt'));
    },
  );
  expect(await readFile(join(root, 'out', 'secret.txt'), 'utf8')).toBe('secret\n');
  expect(results(events).at(-1)).not.toContain(join(root, 'out'));
});

test('the same for an edit, even when the outside file was read too (so "read it first" does not stop it)', async () => {
  await writeFile(join(root, 'ws', 'victim.txt'), 'mine\n');
  await writeFile(join(root, 'out', 'secret.txt'), 'mine\n');
  await turn(
    [
      sse.toolCall('read', {path: 'victim.txt'}),
      sse.toolCall('read', {path: join(root, 'out', 'secret.txt')}),
      sse.toolCall('edit', {path: 'victim.txt', old_string: 'mine', new_string: 'PWNED'}),
      sse.text('done'),
    ],
    async () => {
      await rm(join(root, 'ws', 'victim.txt'));
      await symlink(join(root, 'out', 'secret.txt'), join(root, 'ws', 'victim.txt'));
    },
  );
  expect(await readFile(join(root, 'out', 'secret.txt'), 'utf8')).toBe('mine\n');
});
