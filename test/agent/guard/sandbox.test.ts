import {mkdir, mkdtemp, realpath, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {bwrapArgs, secretPaths, startSandbox} from '../../../source/agent/guard/sandbox.js';
import {sandboxPlausiblyCaused} from '../../../source/agent/guard/sandbox-failure.js';

describe('secretPaths', () => {
  test("the usual credential dirs, nib's config, data and state dirs, and the configured list", () => {
    const env = {HOME: '/home/p', XDG_STATE_HOME: '/state'};
    expect(secretPaths(env, ['~/.kube', '/opt/keys', 'relative/ignored'])).toEqual([
      '/home/p/.ssh', '/home/p/.aws', '/home/p/.gnupg', '/home/p/.netrc', '/home/p/.docker',
      '/home/p/.config/nib', '/home/p/.local/share/nib', '/state/nib',
      '/home/p/.kube', '/opt/keys',
    ]);
  });
});

describe('bwrapArgs', () => {
  test('read-only root, writable workspace and /tmp, hidden paths last; network only when asked', () => {
    const args = bwrapArgs({root: '/w', tmp: '/t', hidden: [{path: '/h/.ssh', directory: true}, {path: '/h/.netrc', directory: false}], network: false});
    expect(args.join(' ')).toBe(
      '--ro-bind / / --dev /dev --proc /proc --bind /t /tmp --bind /w /w --tmpfs /h/.ssh --ro-bind /dev/null /h/.netrc ' +
        '--unshare-pid --unshare-ipc --die-with-parent --unshare-net --setenv TMPDIR /tmp --chdir /w',
    );
    expect(bwrapArgs({root: '/w', tmp: '/t', hidden: [], network: true})).not.toContain('--unshare-net');
  });
});

describe('startSandbox', () => {
  let root: string;
  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'nib-sandbox-unit-')));
  });
  afterEach(() => rm(root, {recursive: true, force: true}));

  test('off starts nothing and says nothing', async () => {
    expect(await startSandbox({setting: 'off', network: false, hide: []}, root, {})).toEqual({ok: true, sandbox: null, notice: null});
  });

  test('a missing bwrap: auto says so (when a command first needs it) with the package to install; on is an error at start', async () => {
    const auto = await startSandbox({setting: 'auto', network: false, hide: []}, root, {}, join(root, 'no-bwrap'));
    if (!auto.ok || !auto.sandbox) throw new Error('auto starts without waiting for the probe');
    expect(await auto.sandbox.ready()).toMatch(/^Commands run unsandboxed: bwrap is not installed; install the bubblewrap package/);
    const on = await startSandbox({setting: 'on', network: false, hide: []}, root, {}, join(root, 'no-bwrap'));
    expect(on).toEqual({ok: false, error: expect.stringMatching(/^--sandbox on: commands cannot be sandboxed: bwrap is not installed/)});
  });

  test('a bwrap that fails its probe is reported with its own first line', async () => {
    const fake = join(root, 'bwrap');
    await writeFile(fake, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', {mode: 0o755});
    const auto = await startSandbox({setting: 'auto', network: false, hide: []}, root, {}, fake);
    expect(auto.ok && (await auto.sandbox?.ready())).toMatch(/bwrap does not work here \(bwrap: No permissions to create new namespace\)/);
    const on = await startSandbox({setting: 'on', network: false, hide: []}, root, {}, fake);
    expect(on.ok).toBe(false);
  });

  test('only existing secret paths are hidden (bwrap cannot mount over what is not there)', async () => {
    const home = join(root, 'home');
    await mkdir(join(home, '.aws'), {recursive: true});
    const fake = join(root, 'bwrap');
    await writeFile(fake, '#!/bin/sh\nexit 0\n', {mode: 0o755});
    const started = await startSandbox({setting: 'on', network: false, hide: []}, root, {HOME: home}, fake);
    if (!started.ok || !started.sandbox) throw new Error('expected a sandbox');
    expect(await started.sandbox.ready()).toBeNull();
    const argv = started.sandbox.wrap(['bash', '-c', 'true']);
    expect(argv).toContain(join(home, '.aws'));
    expect(argv).not.toContain(join(home, '.ssh'));
    expect(argv.slice(-4)).toEqual(['--', 'bash', '-c', 'true']);
    await started.sandbox.close();
  });
});

describe('sandboxPlausiblyCaused', () => {
  const facts = {root: '/w', network: false};
  test('read-only or permission errors outside the workspace, and network errors with the network off', () => {
    expect(sandboxPlausiblyCaused("touch: cannot touch '/usr/x': Read-only file system", facts)).toBe(true);
    expect(sandboxPlausiblyCaused('npm ERR! EACCES: permission denied, mkdir /home/p/.npm', facts)).toBe(true);
    expect(sandboxPlausiblyCaused('curl: (6) Could not resolve host: example.com', facts)).toBe(true);
    expect(sandboxPlausiblyCaused('getaddrinfo EAI_AGAIN registry.npmjs.org', facts)).toBe(true);
  });

  test('not for ordinary failures, errors inside the workspace, or network errors with the network on', () => {
    expect(sandboxPlausiblyCaused('FAIL test/a.test.ts', facts)).toBe(false);
    expect(sandboxPlausiblyCaused("bash: /w/run.sh: Permission denied", facts)).toBe(false);
    expect(sandboxPlausiblyCaused('Could not resolve host: example.com', {root: '/w', network: true})).toBe(false);
  });
});
