import {existsSync} from 'node:fs';
import {mkdir, readFile, symlink, writeFile} from 'node:fs/promises';
import {createServer, type AddressInfo} from 'node:net';
import {join} from 'node:path';
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
