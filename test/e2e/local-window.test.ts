import {afterEach, beforeEach, expect, test} from 'vitest';
import {startOpenAiServer, type OpenAiServer, type Script} from '../support/openai-server.js';
import type {Persona} from '../support/server-persona.js';
import {sse} from '../support/sse.js';
import {createSandbox, runNib, type Sandbox} from '../support/nib-process.js';

let sandbox: Sandbox;
let server: OpenAiServer | undefined;

beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await sandbox.cleanup();
});

async function nib(persona: Persona, script: Script, args: string[]) {
  server = await startOpenAiServer(script, {persona});
  return runNib(sandbox, ['--base-url', server.url, ...args]);
}

const paste = 'explain this log:\n' + Array.from({length: 400}, (_, i) => `2026-11-25T01:${String(i % 60).padStart(2, '0')}:00 worker-${i % 7} processed batch ${i} with status ok`).join('\n');

test('print mode: a prompt over the window is refused before sending; the sizes and the fix are the first line on stderr, exit 1', async () => {
  const result = await nib({kind: 'llama.cpp', window: 4096}, [sse.text('never asked')], ['--model', 'm', '-p', paste]);
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  const first = result.stderr.split('\n')[0]!;
  expect(first).toMatch(/^nib: Not sent: this prompt is about [\d.]+k tokens; the server's window is 4,096, and the system prompt and tools take [\d.]+k of it/);
  expect(first).toMatch(/--ctx-size/);
  expect(result.stderr).not.toMatch(/Nothing to compact/);
  expect(server!.requests).toHaveLength(0);
});

test('print mode, a server whose list says nothing of the window (OpenAI bytes): its refusal sets it, the prompt is taken back and the sizes come first', async () => {
  const result = await nib({kind: 'openai', window: 2048, models: ['m']}, [sse.text('never')], ['--model', 'm', '-p', paste]);
  expect(result.code).toBe(1);
  expect(server!.requests).toHaveLength(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines[0]).toMatch(/^nib: Not sent: this prompt is about [\d.]+k tokens; the server's window is 2,048, .*Send less, or use a model with a larger window\.$/);
  expect(result.stderr).not.toMatch(/Nothing to compact/);
});

test('no model configured: the server\'s only model is used and named', async () => {
  const result = await nib({kind: 'llama.cpp', window: 16384, models: ['qwen2.5-coder-7b.gguf']}, [sse.text('hello')], ['-p', 'say hi']);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe('hello');
  expect(server!.requests[0]!.body.model).toBe('qwen2.5-coder-7b.gguf');
  expect(result.stderr).toContain("using the server's only model, qwen2.5-coder-7b.gguf");
});

test('no model configured and several served: print mode names them in its error', async () => {
  const result = await nib({kind: 'ollama', window: 8192, models: ['llama3.2:3b', 'qwen3:8b']}, [sse.text('never')], ['-p', 'say hi']);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/no model configured, and http:\/\/127\.0\.0\.1:\d+\/v1 serves 2: llama3\.2:3b, qwen3:8b\. Pass --model NAME/);
  expect(server!.requests).toHaveLength(0);
});

test('--context-window overrides the server', async () => {
  const result = await nib({kind: 'llama.cpp', window: 4096}, [sse.text('fits')], ['--model', 'm', '--context-window', '1000', '-p', 'x'.repeat(2400)]);
  expect(result.code).toBe(1);
  expect(result.stderr.split('\n')[0]).toMatch(/the configured window is 1,000.*raise contextWindow/);
});
