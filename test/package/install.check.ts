import {execFile} from 'node:child_process';
import {existsSync} from 'node:fs';
import {mkdtemp, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {delimiter, dirname, join} from 'node:path';
import {promisify} from 'node:util';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {startOpenAiServer} from '../support/openai-server.js';
import {sse} from '../support/sse.js';
import {ROOT, startTerminal} from '../support/tmux.js';

// What a person gets from `npm install -g nib-coding-agent`: the packed tarball, installed
// globally by the newest npm into a temporary prefix, run from there on this Node (22 or newer).

const run = promisify(execFile);
type PackInfo = {filename: string; size: number; unpackedSize: number; files: Array<{path: string}>};
const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {name: string; version: string};
let scratch = '';
let prefix = '';
let files: string[] = [];
let installLog = '';
// The nib on PATH runs on `#!/usr/bin/env node`: put this Node first, as a person's PATH would.
// NIB_CHECK_NODE=/path/to/node runs it on another Node (e.g. 22, the oldest nib supports).
const nodeDir = dirname(process.env['NIB_CHECK_NODE'] ?? process.execPath);
const env = () => ({...process.env, PATH: `${join(prefix, 'bin')}${delimiter}${nodeDir}${delimiter}${process.env['PATH']}`});
const npmLatest = (args: string[], cwd: string) =>
  run('npx', ['-y', 'npm@latest', ...args], {cwd, env: {...process.env, npm_config_update_notifier: 'false'}, maxBuffer: 64 * 1024 * 1024});

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'nib-package-'));
  prefix = join(scratch, 'prefix');
  // --ignore-scripts is not used: prepack builds a clean dist/, as `npm publish` would.
  const packed = await npmLatest(['pack', '--json', '--pack-destination', scratch], ROOT);
  // npm 11 prints an array of packages, npm 12 an object keyed by name.
  const parsed = JSON.parse(packed.stdout) as PackInfo[] | Record<string, PackInfo>;
  const info = (Array.isArray(parsed) ? parsed : Object.values(parsed))[0]!;
  files = info.files.map(file => file.path);
  console.log(`packed ${info.filename}: ${files.length} files, ${info.size} bytes (${info.unpackedSize} unpacked)`);
  const install = await npmLatest(['install', '-g', '--prefix', prefix, join(scratch, info.filename)], scratch);
  installLog = install.stdout + install.stderr;
});

afterAll(async () => {
  await rm(scratch, {recursive: true, force: true});
});

describe('the packed package', () => {
  test('holds only what runs: dist/, README, LICENSE, package.json', () => {
    expect(files).toContain('dist/cli.js');
    expect(files).toContain('dist/THIRD-PARTY-LICENSES.txt');
    expect(files).toContain('LICENSE');
    for (const file of files) expect(file).toMatch(/^(dist\/[^/]+\.(js|txt)|dist\/chunks\/[^/]+\.js|README\.md|LICENSE|package\.json)$/);
  });

  test('installs globally without running an install script and without pulling dependencies', () => {
    const installed = join(prefix, 'lib', 'node_modules', pkg.name);
    expect(existsSync(join(installed, 'dist', 'cli.js'))).toBe(true);
    // The bundle carries its libraries: nothing else is installed, so nothing else can run a script.
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);
    // npm 12 names each install script it blocked ("install-scripts") and each one it ran ("run").
    expect(installLog).not.toMatch(/install-scripts|^npm (notice|info) run /m);
    expect(installLog).toMatch(/added 1 package/);
  });

  test("the package's manifest has no script npm would run on install (prepare is stripped at pack)", async () => {
    const manifest = JSON.parse(await readFile(join(prefix, 'lib', 'node_modules', pkg.name, 'package.json'), 'utf8')) as {scripts?: Record<string, string>};
    for (const event of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts?.[event]).toBeUndefined();
    // And the working copy got its own manifest back after the pack.
    expect((JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {scripts: Record<string, string>}).scripts['prepare']).toBeDefined();
  });

  test('nib --version prints the version', async () => {
    console.log(`nib runs on ${(await run('node', ['--version'], {env: env()})).stdout.trim()}`);
    const {stdout} = await run('nib', ['--version'], {env: env()});
    expect(stdout.trim()).toBe(pkg.version);
  });

  test('nib -p answers from the loopback server', async () => {
    const server = await startOpenAiServer([sse.text('hello from the installed nib')]);
    try {
      const {stdout} = await run('nib', ['-p', 'say hello', '--model', 'm', '--base-url', server.url, '--cwd', scratch], {env: env()});
      expect(stdout).toContain('hello from the installed nib');
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  test('nib --demo runs the whole demo in a terminal', async () => {
    const home = join(scratch, 'home');
    const term = await startTerminal({
      command: [join(prefix, 'bin', 'nib'), '--demo'],
      cwd: scratch,
      env: {HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.data'), XDG_STATE_HOME: join(home, '.state'), PATH: env().PATH, TERM: 'screen-256color', LANG: 'C.UTF-8'},
      width: 100,
      height: 40,
    });
    try {
      // A key counts once the prompt shows its keys (keys typed before it was ready are ignored).
      await term.waitForText(/Allow (edit|write)\? y yes/, {timeoutMs: 30_000});
      await term.send('y');
      await term.waitForText(/Allow (bash|command)\S* y yes/, {timeoutMs: 30_000});
      await term.send('y');
      await term.waitForText('That was the whole demo', {timeoutMs: 30_000});
    } finally {
      await term.close();
    }
  });
});
