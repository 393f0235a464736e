import {afterEach, expect, test} from 'vitest';
import {mkdir, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {resolveConfig} from '../../../source/agent/config/config.js';
import {parseFlags} from '../../../source/agent/config/flags.js';
import {openSession} from '../../../source/agent/session/open.js';
import {startOpenAiServer, type OpenAiServer} from '../../support/openai-server.js';
import {createSandbox, type Sandbox} from '../../support/session.js';
import {sse} from '../../support/sse.js';

let server: OpenAiServer | undefined;
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await server?.close();
  await sandbox?.cleanup();
  server = sandbox = undefined;
});

/** A session opened as nib opens one with no model configured, against `server`. */
async function openWithoutModel(canAsk: boolean) {
  const flags = parseFlags(['--cwd', sandbox!.workspace, '--base-url', server!.url]);
  if (!flags.ok) throw new Error(flags.error);
  const config = await resolveConfig({flags: flags.value, env: sandbox!.env, cwd: sandbox!.workspace});
  if (!config.ok) throw new Error(config.error);
  const opened = await openSession(config.value, sandbox!.env, {canAsk});
  if (!opened.ok) throw new Error(opened.error);
  return opened.value;
}

test('no model configured and several served: the picker has the list before the window probe runs', async () => {
  // The TUI asks the server its window only after its first frame (AgentSession.warmUp), but the
  // picker it opens at start needs the model list at once: the list nib chose from is kept.
  server = await startOpenAiServer([sse.text('never')], {persona: {kind: 'ollama', window: 8192, models: ['llama3.2:3b', 'qwen3:8b']}});
  sandbox = await createSandbox();
  const session = await openWithoutModel(true);
  expect(session.chooseModel).toBe(true);
  expect(session.window.models).toEqual(['llama3.2:3b', 'qwen3:8b']);
  await session.close();
});

test('no model configured and one served: the config file\'s contextWindows entry for it applies', async () => {
  server = await startOpenAiServer([sse.text('never')], {persona: {kind: 'llama.cpp', window: 16_384, models: ['solo']}});
  sandbox = await createSandbox();
  await mkdir(join(sandbox.env.XDG_CONFIG_HOME!, 'nib'), {recursive: true});
  await writeFile(join(sandbox.env.XDG_CONFIG_HOME!, 'nib', 'config.json'), JSON.stringify({contextWindows: {solo: 1024}}));
  const session = await openWithoutModel(false);
  expect(session.model).toBe('solo');
  expect(session.window.window).toBe(1024);
  expect(session.window.source).toBe('config');
  await session.close();
});
