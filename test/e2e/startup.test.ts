import {readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {startOpenAiServer, type OpenAiServer} from '../support/openai-server.js';
import {sse} from '../support/sse.js';
import {createSandbox, runNib, type Sandbox} from '../support/nib-process.js';

// Startup time is a feature: `nib --version` must not load zod or the SDK, and `nib -p` must
// never load React or Ink. A module hook lists every bundle file Node loads.

let sandbox: Sandbox;
let server: OpenAiServer | undefined;
let hook: string;

beforeEach(async () => {
  sandbox = await createSandbox();
  hook = join(sandbox.root, 'list-loads.mjs');
  await writeFile(
    hook,
    [
      "import {registerHooks} from 'node:module';",
      'registerHooks({load(url, context, next) {',
      "  if (url.includes('/dist/')) process.stderr.write(`LOADED ${url}\\n`);",
      '  return next(url, context);',
      '}});',
    ].join('\n'),
  );
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await sandbox.cleanup();
});

async function loadedBundleText(stderr: string): Promise<string> {
  const urls = [...stderr.matchAll(/^LOADED (\S+)$/gm)].map(match => match[1]!);
  expect(urls.length).toBeGreaterThan(0);
  const texts = await Promise.all(urls.map(url => readFile(fileURLToPath(url), 'utf8')));
  return texts.join('\n');
}

const REACT = 'react.transitional.element';
const ZOD = 'ZodError';

test('nib --version loads neither zod nor React', async () => {
  const result = await runNib(sandbox, ['--version'], {env: {NODE_OPTIONS: `--import=${hook}`}});
  expect(result.code).toBe(0);
  const loaded = await loadedBundleText(result.stderr);
  expect(loaded).not.toContain(ZOD);
  expect(loaded).not.toContain(REACT);
});

test('nib -p never loads React or Ink', async () => {
  server = await startOpenAiServer([sse.text('hello')]);
  const result = await runNib(sandbox, ['-p', 'hi', '--base-url', server.url, '--model', 'm'], {
    env: {NODE_OPTIONS: `--import=${hook}`},
  });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe('hello');
  const loaded = await loadedBundleText(result.stderr);
  expect(loaded).toContain(ZOD);
  expect(loaded).not.toContain(REACT);
});
