import {mkdir, readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {startOpenAiServer, type OpenAiServer} from '../support/openai-server.js';
import {sse, type StreamResponse} from '../support/sse.js';
import {createSandbox, filesContaining, runNib, TEST_API_KEY, type NibResult, type Sandbox} from '../support/nib-process.js';

// Issue #3: every tool end to end through `nib -p` and the loopback server.

let sandbox: Sandbox;
let server: OpenAiServer | undefined;

beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  expect(await filesContaining(sandbox.root, TEST_API_KEY)).toEqual([]);
  await sandbox.cleanup();
});

async function nib(turns: StreamResponse[], mode = 'ask'): Promise<NibResult> {
  server = await startOpenAiServer([...turns, sse.text('All done.')]);
  const result = await runNib(sandbox, ['-p', 'go', '--base-url', server.url, '--model', 'm', '--approval-mode', mode]);
  expect(result.stderr).not.toContain(TEST_API_KEY);
  return result;
}

/** The tool messages nib sent back, in order, across all requests. */
function toolResults(): string[] {
  const last = server!.requests.at(-1)!.body.messages;
  return last.filter(m => m.role === 'tool').map(m => String(m.content));
}

describe('tools through nib -p', () => {
  test('read', async () => {
    await writeFile(join(sandbox.workspace, 'notes.txt'), 'first\nsecond\n');
    const result = await nib([sse.toolCall('read', {path: 'notes.txt', offset: 2})]);
    expect(result).toMatchObject({code: 0, stdout: 'All done.'});
    expect(result.stderr).toContain('→ read notes.txt');
    expect(toolResults()[0]).toMatch(/2\s+second/);
    expect(toolResults()[0]).not.toContain('first');
  });

  test('write (auto-edit) creates the file', async () => {
    const result = await nib([sse.toolCall('write', {path: 'src/new.txt', content: 'made by nib\n'})], 'auto-edit');
    expect(result.code).toBe(0);
    expect(await readFile(join(sandbox.workspace, 'src/new.txt'), 'utf8')).toBe('made by nib\n');
    expect(toolResults()[0]).toMatch(/Created/);
  });

  test('a denied write leaves the file unchanged and tells the model', async () => {
    const path = join(sandbox.workspace, 'keep.txt');
    await writeFile(path, 'original\n');
    const result = await nib([
      sse.toolCall('read', {path: 'keep.txt'}),
      sse.toolCall('write', {path: 'keep.txt', content: 'clobbered\n'}),
    ]);
    expect(result.code).toBe(0);
    expect(await readFile(path, 'utf8')).toBe('original\n');
    expect(toolResults()[1]).toMatch(/write was not run.*--approval-mode auto-edit/);
    expect(result.stderr).toContain('→ write keep.txt');
    expect(result.stderr).toMatch(/✗ write was not run/);
  });

  test('edit (auto-edit) after a read replaces exactly the text', async () => {
    const path = join(sandbox.workspace, 'app.js');
    await writeFile(path, 'const answer = 41;\nconsole.log(answer);\n');
    const result = await nib(
      [sse.toolCall('read', {path: 'app.js'}), sse.toolCall('edit', {path: 'app.js', old_string: '41', new_string: '42'})],
      'auto-edit',
    );
    expect(result.code).toBe(0);
    expect(await readFile(path, 'utf8')).toBe('const answer = 42;\nconsole.log(answer);\n');
    expect(toolResults()[1]).not.toMatch(/error|refused|not run/i);
  });

  test('bash (yolo) runs in the workspace and reports the output', async () => {
    await writeFile(join(sandbox.workspace, 'marker.txt'), '');
    const result = await nib([sse.toolCall('bash', {command: 'ls && echo from-bash-$((6*7))'})], 'yolo');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('→ bash ls && echo');
    expect(toolResults()[0]).toContain('marker.txt');
    expect(toolResults()[0]).toContain('from-bash-42');
  });

  test('a failing or timed-out command says so on stderr, not its first output line', async () => {
    const result = await nib(
      [sse.toolCall('bash', {command: 'echo all good so far; exit 3'}), sse.toolCall('bash', {command: 'sleep 30', timeout: 0.5})],
      'yolo',
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/✗ exit 3 · [\d.]+ s · sandboxed\n/);
    expect(result.stderr).toMatch(/✗ timeout · [\d.]+ s · sandboxed\n/);
    expect(result.stderr).not.toContain('✗ all good so far');
  });

  test('bash in the default ask mode is refused, not run', async () => {
    const result = await nib([sse.toolCall('bash', {command: 'touch should-not-exist'})]);
    expect(result.code).toBe(0);
    await expect(readFile(join(sandbox.workspace, 'should-not-exist'))).rejects.toThrow();
    expect(toolResults()[0]).toMatch(/bash was not run.*yolo/);
  });

  test('grep finds matches as path:line: text', async () => {
    await mkdir(join(sandbox.workspace, 'lib'));
    await writeFile(join(sandbox.workspace, 'lib', 'a.ts'), 'export const needle = 1;\n');
    await writeFile(join(sandbox.workspace, 'b.txt'), 'hay\nmore hay\nneedle here\n');
    const result = await nib([sse.toolCall('grep', {pattern: 'needle'})]);
    expect(result.code).toBe(0);
    expect(toolResults()[0]).toMatch(/lib\/a\.ts:1: ?export const needle/);
    expect(toolResults()[0]).toMatch(/b\.txt:3: ?needle here/);
  });

  test('list shows the tree', async () => {
    await mkdir(join(sandbox.workspace, 'pkg', 'src'), {recursive: true});
    await writeFile(join(sandbox.workspace, 'pkg', 'src', 'index.ts'), '');
    await writeFile(join(sandbox.workspace, 'README.md'), '');
    const result = await nib([sse.toolCall('list', {})]);
    expect(result.code).toBe(0);
    expect(toolResults()[0]).toContain('README.md');
    expect(toolResults()[0]).toContain('index.ts');
  });
});
