import {execFileSync} from 'node:child_process';
import {statSync} from 'node:fs';
import {mkdir, mkdtemp, readdir, realpath, rm, symlink, utimes, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test, vi} from 'vitest';
import {bwrapArgs, protectedPaths, runtimeDirs, secretPaths, startSandbox} from '../../../source/agent/guard/sandbox.js';
import {sandboxPlausiblyCaused} from '../../../source/agent/guard/sandbox-failure.js';
import {KEEP_FRESH_MS, STALE_AFTER_MS} from '../../../source/core/stale-temp.js';
import {waitFor} from '../../support/wait-for.js';

describe('secretPaths', () => {
  test("the usual credential dirs, nib's config, data and state dirs, and the configured list", () => {
    const env = {HOME: '/home/p', XDG_STATE_HOME: '/state'};
    expect(secretPaths(env, ['~/.kube', '/opt/keys', 'relative/ignored'])).toEqual([
      '/home/p/.ssh', '/home/p/.aws', '/home/p/.gnupg', '/home/p/.netrc', '/home/p/.docker', '/home/p/.git-credentials',
      '/home/p/.npmrc', '/home/p/.pypirc', '/home/p/.config/gh', '/home/p/.kube', '/home/p/.cargo/credentials',
      '/home/p/.cargo/credentials.toml', '/home/p/.config/gcloud', '/home/p/.azure', '/home/p/.local/share/keyrings',
      '/home/p/.password-store', '/home/p/.config/nib', '/home/p/.local/share/nib', '/state/nib', '/opt/keys',
    ]);
  });

  test('gh and the keyrings are also hidden where the XDG dirs moved them', () => {
    const paths = secretPaths({HOME: '/home/p', XDG_CONFIG_HOME: '/cfg', XDG_DATA_HOME: '/data'});
    expect(paths).toEqual(expect.arrayContaining(['/cfg/gh', '/data/keyrings', '/home/p/.config/gh', '/cfg/nib']));
  });
});

describe('runtimeDirs', () => {
  test('/run always, $XDG_RUNTIME_DIR when it is a directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nib-runtime-'));
    try {
      expect(runtimeDirs({})[0]).toBe('/run');
      expect(runtimeDirs({XDG_RUNTIME_DIR: dir})).toContain(dir);
      expect(runtimeDirs({XDG_RUNTIME_DIR: join(dir, 'missing')})).not.toContain(join(dir, 'missing'));
      expect(runtimeDirs({XDG_RUNTIME_DIR: 'relative'})).not.toContain('relative');
    } finally {
      await rm(dir, {recursive: true, force: true});
    }
  });
});

describe('protectedPaths', () => {
  let root: string;
  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'nib-protected-')));
  });
  afterEach(() => rm(root, {recursive: true, force: true}));

  test('existing version-control dirs (any case), .nib and .mcp.json; nothing else', async () => {
    for (const dir of ['.git', 'CVS', '.nib', 'src']) await mkdir(join(root, dir));
    for (const file of ['.mcp.json', 'README.md']) await writeFile(join(root, file), '');
    expect(protectedPaths(root).sort()).toEqual([join(root, '.git'), join(root, '.mcp.json'), join(root, '.nib'), join(root, 'CVS')]);
  });

  test('a link is protected at its target inside the workspace; one outside, dangling or to the root is left alone', async () => {
    await mkdir(join(root, 'real-git'));
    await symlink(join(root, 'real-git'), join(root, '.git'));
    await symlink('/usr', join(root, '.hg'));
    await symlink(join(root, 'missing'), join(root, '.nib'));
    await symlink(root, join(root, '.jj'));
    expect(protectedPaths(root)).toEqual([join(root, 'real-git')]);
  });

  test('a workspace that cannot be listed protects nothing rather than failing', () => {
    expect(protectedPaths(join(root, 'missing'))).toEqual([]);
  });
});

describe('bwrapArgs', () => {
  test('read-only root, runtime dirs emptied, writable workspace and /tmp, control files read-only, hidden paths last; network only when asked', () => {
    const args = bwrapArgs({
      root: '/w',
      tmp: '/t',
      hidden: [{path: '/h/.ssh', directory: true}, {path: '/h/.netrc', directory: false}],
      network: false,
      runtime: ['/run', '/xdg'],
      kept: ['/run/resolv.conf'],
      readOnly: ['/w/.git', '/w/.nib'],
    });
    expect(args.join(' ')).toBe(
      '--ro-bind / / --dev /dev --proc /proc --tmpfs /run --tmpfs /xdg --ro-bind /run/resolv.conf /run/resolv.conf ' +
        '--bind /t /tmp --bind /w /w --ro-bind /w/.git /w/.git --ro-bind /w/.nib /w/.nib ' +
        '--tmpfs /h/.ssh --ro-bind /dev/null /h/.netrc ' +
        '--unshare-pid --unshare-ipc --die-with-parent --unshare-net ' +
        '--unsetenv SSH_AUTH_SOCK --unsetenv DBUS_SESSION_BUS_ADDRESS --setenv TMPDIR /tmp --chdir /w',
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

  test('a bwrap that is installed but fails its probe is reported with its own first line, and no advice to install it', async () => {
    const fake = join(root, 'bwrap');
    await writeFile(fake, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', {mode: 0o755});
    const auto = await startSandbox({setting: 'auto', network: false, hide: []}, root, {}, fake);
    expect(auto.ok && (await auto.sandbox?.ready())).toBe(
      'Commands run unsandboxed: bwrap is installed but fails here (bwrap: No permissions to create new namespace).',
    );
    const on = await startSandbox({setting: 'on', network: false, hide: []}, root, {}, fake);
    expect(on).toEqual({
      ok: false,
      error: '--sandbox on: commands cannot be sandboxed: bwrap is installed but fails here (bwrap: No permissions to create new namespace); run with --sandbox off',
    });
  });

  /** Runs `body` with a bwrap that works and TMPDIR set to an empty dir of the test's own. */
  async function withTempDir(body: (temp: string, fake: string) => Promise<void>): Promise<void> {
    const fake = join(root, 'bwrap');
    await writeFile(fake, '#!/bin/sh\nexit 0\n', {mode: 0o755});
    const temp = join(root, 'temp');
    await mkdir(temp);
    const saved = process.env['TMPDIR'];
    process.env['TMPDIR'] = temp;
    try {
      await body(temp, fake);
    } finally {
      if (saved === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = saved;
    }
  }

  test("the commands' /tmp is made when the first command needs it, and removed at close; a session that runs none leaves nothing", () =>
    withTempDir(async (temp, fake) => {
      const idle = await startSandbox({setting: 'auto', network: false, hide: []}, root, {}, fake);
      if (!idle.ok || !idle.sandbox) throw new Error('expected a sandbox');
      expect(await readdir(temp)).toEqual([]);
      await idle.sandbox.close();
      // A command that reaches it after the close is not sandboxed, and makes nothing.
      expect(await idle.sandbox.ready()).toMatch(/the session is closing/);
      expect(await readdir(temp)).toEqual([]);
      const used = await startSandbox({setting: 'auto', network: false, hide: []}, root, {}, fake);
      if (!used.ok || !used.sandbox) throw new Error('expected a sandbox');
      expect(await used.sandbox.ready()).toBeNull();
      const [made] = await readdir(temp);
      expect(made).toMatch(new RegExp(`^nib-sandbox-${process.pid}-[A-Za-z0-9]{6}$`));
      expect(used.sandbox.wrap(['true']).join(' ')).toContain(`--bind ${join(temp, made!)} /tmp`);
      await used.sandbox.close();
      expect(await readdir(temp)).toEqual([]);
    }));

  test("a live session's /tmp is touched every hour, so a nib that cannot see its pid does not take it for a killed one's", () =>
    withTempDir(async (temp, fake) => {
      vi.useFakeTimers({toFake: ['setInterval', 'clearInterval']});
      try {
        const started = await startSandbox({setting: 'auto', network: false, hide: []}, root, {}, fake);
        if (!started.ok || !started.sandbox) throw new Error('expected a sandbox');
        expect(await started.sandbox.ready()).toBeNull();
        const made = join(temp, (await readdir(temp))[0]!);
        const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
        await utimes(made, twoDaysAgo, twoDaysAgo);
        vi.advanceTimersByTime(KEEP_FRESH_MS);
        await waitFor(() => expect(Date.now() - statSync(made).mtimeMs).toBeLessThan(STALE_AFTER_MS));
        await started.sandbox.close();
        expect(await readdir(temp)).toEqual([]);
      } finally {
        vi.useRealTimers();
      }
    }));

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

  test('a secret path that is an absolute link (a dotfile manager\'s) is hidden at its target, outside HOME too; the real bwrap starts', async () => {
    // Outside /tmp, which is the command's private one: only the hiding keeps these out of reach.
    const home = await mkdtemp('/var/tmp/nib-sandbox-linked-home-');
    const dotfiles = await mkdtemp('/var/tmp/nib-sandbox-dotfiles-');
    try {
      await mkdir(join(dotfiles, 'aws'));
      await writeFile(join(dotfiles, 'aws', 'credentials'), 'SECRET-AWS\n');
      await writeFile(join(dotfiles, 'netrc'), 'SECRET-NETRC\n');
      await writeFile(join(home, '.bashrc'), 'PLAIN-FILE\n');
      await symlink(join(dotfiles, 'aws'), join(home, '.aws'));
      await symlink(join(dotfiles, 'netrc'), join(home, '.netrc'));
      await symlink(join(dotfiles, 'missing'), join(home, '.ssh'));
      const started = await startSandbox({setting: 'on', network: false, hide: []}, root, {HOME: home});
      if (!started.ok || !started.sandbox) throw new Error(started.ok ? 'expected a sandbox' : started.error);
      const read = `cat ${home}/.aws/credentials ${dotfiles}/aws/credentials ${home}/.netrc ${dotfiles}/netrc ${home}/.bashrc 2>&1; touch ${home}/planted 2>&1; echo end`;
      const [bwrap, ...args] = started.sandbox.wrap(['sh', '-c', read]);
      const out = execFileSync(bwrap!, args, {encoding: 'utf8'});
      await started.sandbox.close();
      expect(out).not.toContain('SECRET');
      expect(out).toContain('PLAIN-FILE');
      expect(out).toMatch(/Read-only file system/);
      expect(out).toMatch(/end\n$/);
    } finally {
      await rm(home, {recursive: true, force: true});
      await rm(dotfiles, {recursive: true, force: true});
    }
  });

  test("a workspace's .git made after the start is read-only from the next command on", async () => {
    const fake = join(root, 'bwrap');
    await writeFile(fake, '#!/bin/sh\nexit 0\n', {mode: 0o755});
    const started = await startSandbox({setting: 'on', network: false, hide: []}, root, {HOME: join(root, 'home')}, fake);
    if (!started.ok || !started.sandbox) throw new Error('expected a sandbox');
    expect(started.sandbox.wrap(['true'])).not.toContain(join(root, '.git'));
    await mkdir(join(root, '.git'));
    const argv = started.sandbox.wrap(['true']);
    const at = argv.indexOf(join(root, '.git'));
    expect(argv.slice(at - 1, at + 2)).toEqual(['--ro-bind', join(root, '.git'), join(root, '.git')]);
    // After the writable workspace bind, or that bind would cover it.
    expect(at).toBeGreaterThan(argv.findIndex((arg, i) => arg === '--bind' && argv[i + 1] === root));
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
