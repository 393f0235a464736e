import {mkdir, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {startOpenAiServer, type OpenAiServer} from '../support/openai-server.js';
import {sse} from '../support/sse.js';
import {createSandbox, runNib, type Sandbox} from '../support/nib-process.js';

// The prompt habits in print mode, through the built CLI: what the server received.

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

async function nib(args: string[]) {
  server = await startOpenAiServer([sse.text('Done.')]);
  return runNib(sandbox, ['--base-url', server.url, '--model', 'test-model', '-p', ...args]);
}

const lastUser = () => String(server!.requests[0]!.body.messages.at(-1)!.content);

test('nib -p with @path attaches the file; a missing path stays as typed', async () => {
  await writeFile(join(sandbox.workspace, 'notes.md'), '# Notes\nship it\n');
  const result = await nib(['summarise @notes.md and @missing.md']);
  expect(result).toMatchObject({code: 0, stdout: 'Done.'});
  expect(lastUser()).toMatch(/^summarise @notes\.md and @missing\.md\n/);
  expect(lastUser()).toContain('<file path="notes.md">\n     1\t# Notes\n     2\tship it\n</file>');
  expect(lastUser()).not.toContain('missing.md">');
});

test('nib -p "/review src/a.ts" sends the custom command with front matter read, $1 and @ filled in', async () => {
  await mkdir(join(sandbox.workspace, '.nib', 'commands'), {recursive: true});
  await mkdir(join(sandbox.workspace, 'src'));
  await writeFile(join(sandbox.workspace, '.nib', 'commands', 'review.md'), '---\ndescription: review a file\nallowed-tools: Bash(git diff:*)\n---\nReview @$1 for $2.\n');
  await writeFile(join(sandbox.workspace, 'src', 'a.ts'), 'export const a = 1;\n');
  const result = await nib(['/review src/a.ts bugs']);
  expect(result).toMatchObject({code: 0, stdout: 'Done.'});
  expect(result.stderr).not.toMatch(/not loaded/);
  expect(lastUser()).toMatch(/^Review @src\/a\.ts for bugs\.\n/);
  expect(lastUser()).toContain('     1\texport const a = 1;');
});

test('a custom command file that cannot be read is named on stderr and the prompt goes as typed', async () => {
  await mkdir(join(sandbox.workspace, '.nib', 'commands'), {recursive: true});
  await writeFile(join(sandbox.workspace, '.nib', 'commands', 'broken.md'), '---\ndescription: [unclosed\n---\nbody\n');
  const result = await nib(['/broken now']);
  expect(result.code).toBe(0);
  expect(result.stderr).toMatch(/broken\.md: the front matter is not valid YAML .*; not loaded/);
  expect(lastUser()).toBe('/broken now');
});
