import {execFile} from 'node:child_process';
import {cp, readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {promisify} from 'node:util';
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

const execFileAsync = promisify(execFile);
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

/**
 * A copy of dist/ away from node_modules, as the package ships; returns the URL (as a JS string
 * literal) of the copy's newest chunk whose name starts with a prefix.
 */
async function copyOfDist(): Promise<(prefix: string) => string> {
  const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
  const copy = join(sandbox.root, 'dist');
  await cp(dist, copy, {recursive: true});
  await writeFile(join(sandbox.root, 'package.json'), '{"type": "module"}');
  // @ts-expect-error: a plain .mjs script without types
  const {newestChunk} = (await import('../../scripts/newest-chunk.mjs')) as {newestChunk: (chunks: string, prefix: string) => string};
  return prefix => JSON.stringify(pathToFileURL(join(copy, 'chunks', newestChunk(join(dist, 'chunks'), prefix))).href);
}

test("Ink's layout engine starts without loading fetch, which the TUI loads after its first frame", async () => {
  // yoga-layout decodes its WebAssembly with fetch() wherever fetch exists, and Node's fetch is
  // undici, loaded on first use; the build has yoga decode it with Buffer (scripts/ink-patches.mjs).
  const chunk = await copyOfDist();
  const script = [
    `await import(${chunk('interactive-')});`,
    'console.log(JSON.stringify(process.moduleLoadList.filter(name => name.includes("undici"))));',
  ].join('\n');
  const {stdout} = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], {cwd: sandbox.root});
  expect(JSON.parse(stdout)).toEqual([]);
});

test('the bundle highlights code, with highlight.js loaded on first use and only from the bundle', async () => {
  // The build swaps marked-terminal's imports of cli-highlight and node-emoji for modules that load
  // them on first use (scripts/build-plugins.mjs), and the approval prompt imports cli-highlight through
  // source/components/highlight.ts.
  const chunk = await copyOfDist();
  const script = [
    `const {createMarkdownRenderer} = await import(${chunk('markdown-render-')});`,
    `const {highlight} = await import(${chunk('highlight-')});`,
    "const render = createMarkdownRenderer({width: text => text.length, wrap: text => text, cut: text => text}); // no table here",
    'console.log(JSON.stringify([',
    "  render('plain :smile: **bold**', 80, true),",
    "  render('```js\\nconst a = 1;\\n```', 80, true),",
    "  render('```vue\\n<template/>\\n```', 80, true),",
    "  highlight('echo hi | grep h', {language: 'bash', ignoreIllegals: true}),",
    ']));',
  ].join('\n');
  const {stdout, stderr} = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], {cwd: sandbox.root, env: {...process.env, FORCE_COLOR: '1'}});
  const [plain, code, vue, command] = JSON.parse(stdout) as [string, string, string, string];
  expect(plain).toContain(':smile:');
  expect(plain).toContain('\u001b[1mbold');
  expect(code).toContain('\u001b[34mconst\u001b[39m');
  // A language highlight.js lacks: the code plain, and nothing on the console (it would land above the app).
  expect(vue).toContain('<template/>');
  expect(stderr).toBe('');
  expect(command).toContain('\u001b[');
});
