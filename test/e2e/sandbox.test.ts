import {execFileSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {copyFile, link, mkdir, mkdtemp, readFile, rm, symlink, writeFile} from 'node:fs/promises';
import {createServer, type AddressInfo, type Server} from 'node:net';
import {dirname, join} from 'node:path';
import {describe, expect, test} from 'vitest';
import {sse} from '../support/sse.js';
import {guardRuns} from './guard-runs.js';

// The command sandbox end to end: dist/cli.js, the loopback server, real bwrap.

const run = guardRuns();


const toolResults = () => run.toolResults();

const bash = (command: string) => sse.toolCall('bash', {command});

describe('the sandbox (nib -p, yolo)', () => {
  test('a write outside the workspace fails; inside it works', async () => {
    const probe = `/usr/nib-sandbox-probe-${process.pid}`;
    const result = await run.nib([bash(`touch inside.txt; touch ${probe}; touch ../outside.txt`)], ['--approval-mode', 'yolo']);
    expect(result.code).toBe(0);
    expect(existsSync(join(run.home.workspace, 'inside.txt'))).toBe(true);
    expect(existsSync(probe)).toBe(false);
    expect(toolResults()[0]).toMatch(/Read-only file system/);
    // The workspace's parent is under /tmp here, which is the command's private /tmp: the write
    // lands there and never on the real file system.
    expect(existsSync(join(run.home.root, 'outside.txt'))).toBe(false);
  });

  test('a !command the person types runs in the sandbox too', async () => {
    const probe = `/usr/nib-sandbox-bang-${process.pid}`;
    const result = await run.nib([], [], {prompt: `!touch bang-inside.txt; touch ${probe}; echo done`});
    expect(result.code).toBe(0);
    expect(existsSync(join(run.home.workspace, 'bang-inside.txt'))).toBe(true);
    expect(existsSync(probe)).toBe(false);
    // A failure the sandbox may have caused says so, and why: nobody is asked to run it again.
    const failed = await run.nib([], [], {prompt: `!touch ${probe}`});
    expect(existsSync(probe)).toBe(false);
    expect(failed.stderr).toMatch(/✗ exit 1 · [\d.]+ s · sandboxed\n/);
    expect(failed.stderr).toContain('It ran in the sandbox, as ! commands do, which may be why it failed');
  });

  test('$TMPDIR is private and writable', async () => {
    await run.nib([bash('echo scratch > "$TMPDIR/t" && cat "$TMPDIR/t" && echo "dir=$TMPDIR"')], ['--approval-mode', 'yolo']);
    expect(toolResults()[0]).toContain('scratch');
    expect(toolResults()[0]).toContain('dir=/tmp');
    expect(existsSync(join(run.home.env.TMPDIR!, 't'))).toBe(false);
  });

  test('there is no network: a port on 127.0.0.1 that answers outside is unreachable inside', async () => {
    const listener = createServer(socket => socket.end());
    await new Promise<void>(resolve => listener.listen(0, '127.0.0.1', resolve));
    const {port} = listener.address() as AddressInfo;
    const probe = `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo CONNECTED || echo NO-NETWORK`;
    try {
      await run.nib([bash(probe)], ['--approval-mode', 'yolo']);
      expect(toolResults()[0]).toContain('NO-NETWORK');
      await run.nib([bash(probe)], ['--approval-mode', 'yolo', '--sandbox', 'off']);
      expect(toolResults()[0]).toContain('CONNECTED');
    } finally {
      listener.close();
    }
  });

  test('the key is in neither the environment nor any /proc environ the command can read', async () => {
    const count = 'cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c DO-NOT-LEAK; env | grep -c DO-NOT-LEAK; echo end';
    await run.nib([bash(count)], ['--approval-mode', 'yolo']);
    expect(toolResults()[0]).toMatch(/^0\n0\nend/);
    // Without the pid namespace nib's own environ is one `cat` away: the sandbox is what hides it.
    await run.nib([bash(count)], ['--approval-mode', 'yolo', '--sandbox', 'off']);
    expect(toolResults()[0]).not.toMatch(/^0\n/);
  });

  test('secret dirs are hidden, nib config included', async () => {
    await mkdir(join(run.home.home, '.ssh'));
    await writeFile(join(run.home.home, '.ssh', 'id_ed25519'), 'PRIVATE');
    await run.nib([bash(`cat ${run.home.home}/.ssh/id_ed25519; ls -A ${run.home.home}/.ssh | wc -l`)], ['--approval-mode', 'yolo']);
    expect(toolResults()[0]).not.toContain('PRIVATE');
    expect(toolResults()[0]).toMatch(/No such file/);
  });

  test("the workspace's .git, .nib and .mcp.json are read-only in auto-edit and yolo; the rest stays writable", async () => {
    const ws = run.home.workspace;
    execFileSync('git', ['init', '-q'], {cwd: ws});
    await mkdir(join(ws, '.nib'));
    await writeFile(join(ws, '.mcp.json'), '{}');
    const config = await readFile(join(ws, '.git', 'config'), 'utf8');
    const attempt = [
      'git config core.fsmonitor "touch /tmp/fsmonitor-ran"; echo "git=$?"',
      'echo "{}" > .nib/settings.local.json; echo "nib=$?"',
      'echo "{\\"mcpServers\\": {}}" > .mcp.json; echo "mcp=$?"',
      'echo ok > normal.txt; echo "normal=$?"',
    ].join('\n');
    for (const mode of ['auto-edit', 'yolo']) {
      await run.nib([bash(attempt)], ['--approval-mode', mode]);
      const out = toolResults()[0];
      expect(out).toMatch(/git=[1-9]/);
      expect(out).toMatch(/Read-only file system/);
      expect(out).toContain('nib=1');
      expect(out).toContain('mcp=1');
      expect(out).toContain('normal=0');
      expect(await readFile(join(ws, '.git', 'config'), 'utf8')).toBe(config);
      expect(existsSync(join(ws, '.nib', 'settings.local.json'))).toBe(false);
      expect(await readFile(join(ws, '.mcp.json'), 'utf8')).toBe('{}');
      expect(await readFile(join(ws, 'normal.txt'), 'utf8')).toBe('ok\n');
      await rm(join(ws, 'normal.txt'));
    }
  });

  test('host Unix sockets under /run and $XDG_RUNTIME_DIR are unreachable, and the agent variables are gone; with the sandbox off they are reached', async () => {
    // Outside /tmp, which is the command's private one anyway: only the runtime-dir tmpfs hides it.
    const runtime = await mkdtemp('/var/tmp/nib-xdg-runtime-');
    const sockets = [join(runtime, 'agent.sock')];
    // Only root may write /run; elsewhere the $XDG_RUNTIME_DIR socket is the whole test.
    const underRun = await mkdtemp('/run/nib-sandbox-test-').catch(() => null);
    if (underRun) sockets.push(join(underRun, 'docker.sock'));
    const listeners = await Promise.all(sockets.map(listenUnix));
    await writeFile(
      join(run.home.workspace, 'probe.cjs'),
      "const s = require('net').connect(process.argv[2]);\n" +
        "s.on('connect', () => { console.log('CONNECTED ' + process.argv[2]); s.destroy(); });\n" +
        "s.on('error', e => console.log('UNREACHABLE ' + process.argv[2] + ' ' + e.code));\n",
    );
    // The node running the tests may live under /tmp (a checkout there), which the sandbox hides:
    // the probe runs a copy of it in the workspace, which the sandbox always shows.
    const node = join(run.home.workspace, 'probe-node');
    await link(process.execPath, node).catch(() => copyFile(process.execPath, node));
    const probe = [
      ...sockets.map(socket => `./probe-node probe.cjs ${socket}`),
      'echo "ssh=${SSH_AUTH_SOCK:-unset} dbus=${DBUS_SESSION_BUS_ADDRESS:-unset}"',
    ].join('; ');
    const env = {XDG_RUNTIME_DIR: runtime, SSH_AUTH_SOCK: sockets[0], DBUS_SESSION_BUS_ADDRESS: `unix:path=${sockets[0]}`};
    try {
      await run.nib([bash(probe)], ['--approval-mode', 'yolo'], {env});
      for (const socket of sockets) expect(toolResults()[0]).toContain(`UNREACHABLE ${socket}`);
      expect(toolResults()[0]).toContain('ssh=unset dbus=unset');
      await run.nib([bash(probe)], ['--approval-mode', 'yolo', '--sandbox', 'off'], {env});
      for (const socket of sockets) expect(toolResults()[0]).toContain(`CONNECTED ${socket}`);
      expect(toolResults()[0]).toContain(`ssh=${sockets[0]}`);
    } finally {
      for (const listener of listeners) listener.close();
      for (const socket of sockets) await rm(dirname(socket), {recursive: true, force: true});
    }
  });

  test('credential files and dirs under $HOME are hidden by default', async () => {
    // A HOME outside /tmp, so the private /tmp does not hide it by accident.
    const home = await mkdtemp('/var/tmp/nib-sandbox-home-');
    const secrets = [
      '.git-credentials', '.npmrc', '.pypirc', '.netrc', '.config/gh/hosts.yml', '.kube/config', '.cargo/credentials',
      '.cargo/credentials.toml', '.config/gcloud/credentials.db', '.azure/msal_token_cache.json',
      '.local/share/keyrings/login.keyring', '.password-store/site.gpg', '.docker/config.json',
    ];
    for (const secret of secrets) {
      await mkdir(dirname(join(home, secret)), {recursive: true});
      await writeFile(join(home, secret), `SECRET ${secret}\n`);
    }
    await writeFile(join(home, '.bashrc'), 'PLAIN-FILE\n');
    const read = `cat ${[...secrets, '.bashrc'].map(secret => join(home, secret)).join(' ')} 2>/dev/null; echo end`;
    try {
      await run.nib([bash(read)], ['--approval-mode', 'yolo'], {env: {HOME: home}});
      expect(toolResults()[0]).not.toContain('SECRET');
      // The rest of $HOME is readable, so the hiding is what stops the reads above.
      expect(toolResults()[0]).toContain('PLAIN-FILE');
      await run.nib([bash(read)], ['--approval-mode', 'yolo', '--sandbox', 'off'], {env: {HOME: home}});
      for (const secret of secrets) expect(toolResults()[0]).toContain(`SECRET ${secret}`);
    } finally {
      await rm(home, {recursive: true, force: true});
    }
  });

  test('--sandbox off: the command reaches outside the workspace as before', async () => {
    const result = await run.nib([bash('touch ../outside.txt')], ['--approval-mode', 'yolo', '--sandbox', 'off']);
    expect(result.code).toBe(0);
    expect(existsSync(join(run.home.root, 'outside.txt'))).toBe(true);
  });

  test('auto-edit runs sandboxed commands without asking, and refuses them with the sandbox off', async () => {
    await run.nib([bash('echo ran > ran.txt')], ['--approval-mode', 'auto-edit']);
    expect(await readFile(join(run.home.workspace, 'ran.txt'), 'utf8')).toBe('ran\n');
    const off = await run.nib([bash('echo again > again.txt')], ['--approval-mode', 'auto-edit', '--sandbox', 'off']);
    expect(off.code).toBe(0);
    expect(existsSync(join(run.home.workspace, 'again.txt'))).toBe(false);
    expect(toolResults()[0]).toMatch(/bash was not run/);
  });

  test('without bwrap: auto says so in one line and runs unsandboxed; on fails clearly', async () => {
    const bin = join(run.home.root, 'bin');
    await mkdir(bin);
    await symlink('/bin/bash', join(bin, 'bash'));
    const env = {PATH: bin};
    const auto = await run.nib([bash(': > ../outside.txt')], ['--approval-mode', 'yolo'], {env});
    expect(auto.code).toBe(0);
    expect(auto.stderr).toMatch(/nib: Commands run unsandboxed: bwrap is not installed; install the bubblewrap package/);
    expect(existsSync(join(run.home.root, 'outside.txt'))).toBe(true);
    const on = await run.nib([], ['--sandbox', 'on'], {env});
    expect(on.code).not.toBe(0);
    expect(on.stderr).toMatch(/--sandbox on: commands cannot be sandboxed: bwrap is not installed/);
    expect(run.server.requests).toHaveLength(0);
  });

  test('a bad --sandbox value and a bad config value are clear errors', async () => {
    const flag = await run.nib([], ['--sandbox', 'maybe']);
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toMatch(/--sandbox must be one of auto, on, off, not "maybe"/);
    await mkdir(join(run.home.home, '.config', 'nib'), {recursive: true});
    await writeFile(join(run.home.home, '.config', 'nib', 'config.json'), JSON.stringify({sandbox: {network: 'yes'}}));
    const file = await run.nib([], []);
    expect(file.code).not.toBe(0);
    expect(file.stderr).toMatch(/config\.json: field "sandbox/);
  });
});

async function listenUnix(path: string): Promise<Server> {
  const server = createServer(socket => socket.end());
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
  return server;
}
