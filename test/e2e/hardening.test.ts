import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {startOpenAiServer, type OpenAiServer, type Script} from '../support/openai-server.js';
import {sse} from '../support/sse.js';
import {createSandbox, jsonEvents, runNib, type NibResult, type Sandbox} from '../support/nib-process.js';

// Print mode against the loopback server, with what a hostile or broken model sends.

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

async function nib(script: Script, args: string[]): Promise<NibResult> {
  server = await startOpenAiServer(script);
  return runNib(sandbox, ['--base-url', server.url, '--model', 'test-model', ...args]);
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
