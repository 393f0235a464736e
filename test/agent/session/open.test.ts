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

test('no model configured and several served: the picker has the list before the window probe runs', async () => {
  // The TUI asks the server its window only after its first frame (AgentSession.warmUp), but the
  // picker it opens at start needs the model list at once: the list nib chose from is kept.
  server = await startOpenAiServer([sse.text('never')], {persona: {kind: 'ollama', window: 8192, models: ['llama3.2:3b', 'qwen3:8b']}});
  sandbox = await createSandbox();
  const flags = parseFlags(['--cwd', sandbox.workspace, '--base-url', server.url]);
  if (!flags.ok) throw new Error(flags.error);
  const config = await resolveConfig({flags: flags.value, env: sandbox.env, cwd: sandbox.workspace});
  if (!config.ok) throw new Error(config.error);
  const opened = await openSession(config.value, sandbox.env, {canAsk: true});
  if (!opened.ok) throw new Error(opened.error);
  expect(opened.value.chooseModel).toBe(true);
  expect(opened.value.window.models).toEqual(['llama3.2:3b', 'qwen3:8b']);
  await opened.value.close();
});

test('no model configured and one served: the config file\'s contextWindows entry for it applies', async () => {
  server = await startOpenAiServer([sse.text('never')], {persona: {kind: 'llama.cpp', window: 16_384, models: ['solo']}});
  sandbox = await createSandbox();
  await mkdir(join(sandbox.env.XDG_CONFIG_HOME!, 'nib'), {recursive: true});
  await writeFile(join(sandbox.env.XDG_CONFIG_HOME!, 'nib', 'config.json'), JSON.stringify({contextWindows: {solo: 1024}}));
  const flags = parseFlags(['--cwd', sandbox.workspace, '--base-url', server.url]);
  if (!flags.ok) throw new Error(flags.error);
  const config = await resolveConfig({flags: flags.value, env: sandbox.env, cwd: sandbox.workspace});
  if (!config.ok) throw new Error(config.error);
  const opened = await openSession(config.value, sandbox.env, {canAsk: false});
  if (!opened.ok) throw new Error(opened.error);
  expect(opened.value.model).toBe('solo');
  expect(opened.value.window.window).toBe(1024);
  expect(opened.value.window.source).toBe('config');
  await opened.value.close();
});
