import {readFileSync} from 'node:fs';
import {readdir, readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {startOpenAiServer, type OpenAiServer, type Script} from '../support/openai-server.js';
import {sse} from '../support/sse.js';
import {createSandbox, filesContaining, jsonEvents, runNib, TEST_API_KEY, type NibResult, type Sandbox} from '../support/nib-process.js';

// Print mode against the loopback server, with what a hostile or broken model sends.

const FIXTURES = join(import.meta.dirname, '../agent/provider/fixtures');
/** A surrogate half written as a JSON escape: JSON.stringify writes lone halves that way. */
const LONE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

let sandbox: Sandbox;
/** Every server a test started (one per nib run), closed after it. */
const servers: OpenAiServer[] = [];
/** The server of the latest run. */
let server: OpenAiServer | undefined;

beforeEach(async () => void (sandbox = await createSandbox()));
afterEach(async () => {
  await Promise.all(servers.splice(0).map(started => started.close()));
  // Whatever a hostile stream made nib do, no file it wrote may hold the key.
  expect(await filesContaining(sandbox.root, TEST_API_KEY)).toEqual([]);
  await sandbox.cleanup();
});

async function nib(script: Script, args: string[]): Promise<NibResult> {
  server = await startOpenAiServer(script);
  servers.push(server);
  const result = await runNib(sandbox, ['--base-url', server.url, '--model', 'test-model', ...args]);
  expect(result.stderr).not.toContain(TEST_API_KEY);
  return result;
}

describe('deeply nested tool arguments', () => {
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  const deepObject = (depth: number) => `${'{"x":'.repeat(depth)}1${'}'.repeat(depth)}`;

  test.each([
    ['arrays', deep(50_000)],
    ['objects', deepObject(50_000)],
  ])('50,000 nested %s are an invalid-arguments result and the turn goes on', async (_kind, value) => {
    const result = await nib(
      [sse.toolCall('read', `{"path": ${value}}`, {id: 'call_deep'}), sse.text('I will send a path.')],
      ['-p', 'read it', '--output-format', 'json'],
    );
    expect(result.stderr).not.toContain('Maximum call stack');
    expect(result.code, result.stderr).toBe(0);
    const events = jsonEvents(result.stdout);
    const toolResult = events.find(event => event.type === 'tool-result');
    expect(toolResult).toMatchObject({id: 'call_deep', is_error: true});
    expect(toolResult!.content).toMatch(/nested more than 64 levels/);
    expect(events.at(-1)).toEqual({type: 'turn-end', reason: 'completed'});
    expect(server!.requests).toHaveLength(2);
    expect(server!.requests[1]!.body.messages.at(-1)).toMatchObject({role: 'tool', tool_call_id: 'call_deep'});
  });

  test('deep arguments sent as an object instead of a string are handled the same way', async () => {
    // JSON.stringify of such a chunk would overflow in the test too: the frame is written by hand.
    const frame = `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_obj","type":"function","function":{"name":"read","arguments":{"path":${deep(50_000)}}}}]},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n`;
    const result = await nib([sse.raw(frame, {split: {type: 'whole'}}), sse.text('ok')], ['-p', 'read it', '--output-format', 'json']);
    expect(result.stderr).not.toContain('Maximum call stack');
    expect(result.code, result.stderr).toBe(0);
    const toolResult = jsonEvents(result.stdout).find(event => event.type === 'tool-result');
    expect(toolResult).toMatchObject({id: 'call_obj', is_error: true});
    expect(toolResult!.content).toContain('nested too deeply');
  });
});

describe('provider stream shapes', () => {
  const fixture = (name: string) => readFileSync(join(FIXTURES, `${name}.sse`), 'utf8');

  test('an `error:` field before [DONE] (older llama.cpp) fails the turn; the partial text is kept', async () => {
    const result = await nib([sse.raw(fixture('error-field-then-done'))], ['-p', 'explain the loader']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('The config loader reads three files:');
    expect(result.stderr).toContain('context shift is disabled');
  });

  test('a bare vLLM error object while a call is half sent: the call never runs', async () => {
    await writeFile(join(sandbox.workspace, 'keep.txt'), 'still here\n');
    const result = await nib(
      [sse.raw(fixture('bare-error-object-mid-call'))],
      ['-p', 'clean up', '--approval-mode', 'yolo', '--output-format', 'json'],
    );
    expect(result.code).toBe(1);
    const events = jsonEvents(result.stdout);
    expect(events.filter(event => event.type === 'text-delta').map(event => event.text).join('')).toBe('Writing the fix.');
    expect(events.some(event => event.type === 'tool-start' || event.type === 'tool-result')).toBe(false);
    expect(events.find(event => event.type === 'error')).toMatchObject({code: 'provider', message: expect.stringContaining('maximum model length')});
    expect(events.at(-1)).toEqual({type: 'turn-end', reason: 'error'});
    expect(server!.requests).toHaveLength(1);
  });

  test('a bare vLLM 400 before any output is reported at once, not retried', async () => {
    const error = {object: 'error', message: 'This model\'s maximum context length is 32768 tokens.', type: 'BadRequestError', param: null, code: 400};
    const result = await nib([sse.chunks([error]), sse.text('unused')], ['-p', 'hi']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('maximum context length is 32768 tokens. (400)');
    expect(result.stderr).not.toContain('retrying');
    expect(server!.requests).toHaveLength(1);
  });

  test('an emoji split into two surrogate halves: whole in text, JSONL and the session log', async () => {
    const text = await nib([sse.raw(fixture('surrogate-pair-split'))], ['-p', 'status?']);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('Tests pass \u{1F389} and a stray \uFFFD half.');
    const json = await nib([sse.raw(fixture('surrogate-pair-split'))], ['-p', 'status?', '--output-format', 'json']);
    expect(json.stdout).not.toMatch(LONE_ESCAPE);
    const deltas = jsonEvents(json.stdout).filter(event => event.type === 'text-delta');
    expect(deltas.map(event => event.text).join('')).toBe('Tests pass \u{1F389} and a stray \uFFFD half.');
    const logs = await readdir(sandbox.home, {recursive: true, withFileTypes: true});
    const sessionFiles = logs.filter(entry => entry.isFile() && entry.name.endsWith('.jsonl'));
    expect(sessionFiles.length).toBeGreaterThan(0);
    for (const entry of sessionFiles) {
      const log = await readFile(join(entry.parentPath, entry.name), 'utf8');
      expect(log).not.toMatch(LONE_ESCAPE);
      expect(log).toContain('\u{1F389}');
    }
  });
});

describe('invisible characters in print mode', () => {
  test('a command with a bidi override and a zero-width space is announced with markers', async () => {
    const command = 'cat notes\u202Etxt.sh; r\u200Bm -rf \u2066build\u2069';
    const result = await nib([sse.toolCall('bash', {command}), sse.text('Not run.')], ['-p', 'tidy up']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('→ bash cat notes<U+202E>txt.sh; r<U+200B>m -rf <U+2066>build<U+2069>');
    expect(result.stderr).not.toMatch(/[\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/);
  });

  test('a path with a zero-width joiner is announced with a marker too', async () => {
    const result = await nib([sse.toolCall('read', {path: 'src/ma\u200Din.ts'}), sse.text('Missing.')], ['-p', 'read it']);
    expect(result.stderr).toContain('→ read src/ma<U+200D>in.ts');
  });
});

describe('tool calls written as text by local models', () => {
  const qwenCoder = '<think>\nI should read it first.\n</think>\n\nReading the notes.\n<tool_call>\n<function=read>\n<parameter=path>\nnotes.txt\n</parameter>\n</function>\n</tool_call>';
  const hermes = 'Reading the notes.\n<tool_call>\n{"name": "read", "arguments": {"path": "notes.txt"}}\n</tool_call>';

  test.each([
    ['Qwen3-Coder XML', qwenCoder],
    ['Hermes JSON', hermes],
  ])('%s in content runs as a call; JSONL marks it and shows no markup', async (_format, content) => {
    await writeFile(join(sandbox.workspace, 'notes.txt'), 'buy milk\n');
    const result = await nib([sse.text(content, {chunkSize: 3}), sse.text('It says: buy milk.')], ['-p', 'what do my notes say?', '--output-format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const events = jsonEvents(result.stdout);
    const call = events.find(event => event.type === 'tool-call');
    expect(call).toMatchObject({name: 'read', arguments: '{"path":"notes.txt"}', source: 'text'});
    expect(events.find(event => event.type === 'tool-result')).toMatchObject({id: call!.id, is_error: false});
    const text = events.filter(event => event.type === 'text-delta').map(event => event.text).join('');
    expect(text).toBe('Reading the notes.\nIt says: buy milk.');
    expect(result.stdout).not.toContain('tool_call');
    expect(result.stdout).not.toContain('<think>');
    // The model gets its call back as a structured call with the result.
    const history = server!.requests[1]!.body.messages;
    expect(history.at(-2)).toMatchObject({role: 'assistant', tool_calls: [{id: call!.id, function: {name: 'read'}}]});
    expect(history.at(-1)).toMatchObject({role: 'tool', tool_call_id: call!.id});
  });

  test('text mode prints the answer without the markup or the reasoning', async () => {
    await writeFile(join(sandbox.workspace, 'notes.txt'), 'buy milk\n');
    const result = await nib([sse.text(qwenCoder, {chunkSize: 2}), sse.text('It says: buy milk.')], ['-p', 'what do my notes say?']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Reading the notes.\n\nIt says: buy milk.');
    expect(result.stderr).toContain('→ read notes.txt');
  });

  test('markup naming a tool nib does not have stays text and runs nothing', async () => {
    const content = '<tool_call>\n{"name": "delete_repo", "arguments": {}}\n</tool_call>';
    const result = await nib([sse.text(content)], ['-p', 'go', '--output-format', 'json']);
    expect(result.code).toBe(0);
    const events = jsonEvents(result.stdout);
    expect(events.some(event => event.type === 'tool-call')).toBe(false);
    expect(events.filter(event => event.type === 'text-delta').map(event => event.text).join('')).toBe(content);
  });
});

describe('doom loops in print mode', () => {
  const again = () => sse.toolCall('read', {path: 'notes.txt'});

  test('the same call three times in a row stops with code loop and exit 1', async () => {
    await writeFile(join(sandbox.workspace, 'notes.txt'), 'buy milk\n');
    const result = await nib([again(), again(), again(), again(), sse.text('never')], ['-p', 'read my notes', '--output-format', 'json']);
    expect(result.code).toBe(1);
    const events = jsonEvents(result.stdout);
    expect(events.filter(event => event.type === 'tool-start')).toHaveLength(2);
    expect(events.find(event => event.type === 'error')).toMatchObject({code: 'loop', message: expect.stringContaining('3 times in a row')});
    expect(events.at(-1)).toEqual({type: 'turn-end', reason: 'error'});
    expect(server!.requests).toHaveLength(3);
    expect(result.stderr).toContain('a loop');
  });
});
