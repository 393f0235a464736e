import {existsSync} from 'node:fs';
import {mkdir, readFile, symlink, writeFile} from 'node:fs/promises';
import {createServer, type AddressInfo} from 'node:net';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {startOpenAiServer, type OpenAiServer} from '../support/openai-server.js';
import {sse, type StreamResponse} from '../support/sse.js';
import {createSandbox, runNib, TEST_API_KEY, type NibResult, type Sandbox} from '../support/nib-process.js';

// The command sandbox end to end: dist/cli.js, the loopback server, real bwrap.

let home: Sandbox;
let server: OpenAiServer | undefined;

beforeEach(async () => {
  home = await createSandbox();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await home.cleanup();
});

async function nib(turns: StreamResponse[], args: string[], env: NodeJS.ProcessEnv = {}): Promise<NibResult> {
  server = await startOpenAiServer([...turns, sse.text('All done.')]);
  const result = await runNib(home, ['-p', 'go', '--base-url', server.url, '--model', 'm', ...args], {env});
  expect(result.stderr).not.toContain(TEST_API_KEY);
  return result;
}

function toolResults(): string[] {
  return server!.requests.at(-1)!.body.messages.filter(m => m.role === 'tool').map(m => String(m.content));
}

const bash = (command: string) => sse.toolCall('bash', {command});

describe('the sandbox (nib -p, yolo)', () => {
  test('a write outside the workspace fails; inside it works', async () => {
    const probe = `/usr/nib-sandbox-probe-${process.pid}`;
    const result = await nib([bash(`touch inside.txt; touch ${probe}; touch ../outside.txt`)], ['--approval-mode', 'yolo']);
    expect(result.code).toBe(0);
    expect(existsSync(join(home.workspace, 'inside.txt'))).toBe(true);
    expect(existsSync(probe)).toBe(false);
    expect(toolResults()[0]).toMatch(/Read-only file system/);
    // The workspace's parent is under /tmp here, which is the command's private /tmp: the write
    // lands there and never on the real file system.
    expect(existsSync(join(home.root, 'outside.txt'))).toBe(false);
  });

  test('$TMPDIR is private and writable', async () => {
    await nib([bash('echo scratch > "$TMPDIR/t" && cat "$TMPDIR/t" && echo "dir=$TMPDIR"')], ['--approval-mode', 'yolo']);
    expect(toolResults()[0]).toContain('scratch');
    expect(toolResults()[0]).toContain('dir=/tmp');
    expect(existsSync(join(home.env.TMPDIR!, 't'))).toBe(false);
  });

  test('there is no network: a port on 127.0.0.1 that answers outside is unreachable inside', async () => {
    const listener = createServer(socket => socket.end());
    await new Promise<void>(resolve => listener.listen(0, '127.0.0.1', resolve));
    const {port} = listener.address() as AddressInfo;
    const probe = `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo CONNECTED || echo NO-NETWORK`;
    try {
      await nib([bash(probe)], ['--approval-mode', 'yolo']);
      expect(toolResults()[0]).toContain('NO-NETWORK');
      await nib([bash(probe)], ['--approval-mode', 'yolo', '--sandbox', 'off']);
      expect(toolResults()[0]).toContain('CONNECTED');
    } finally {
      listener.close();
    }
  });

  test('the key is in neither the environment nor any /proc environ the command can read', async () => {
    const count = 'cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c DO-NOT-LEAK; env | grep -c DO-NOT-LEAK; echo end';
    await nib([bash(count)], ['--approval-mode', 'yolo']);
    expect(toolResults()[0]).toMatch(/^0\n0\nend/);
    // Without the pid namespace nib's own environ is one `cat` away: the sandbox is what hides it.
    await nib([bash(count)], ['--approval-mode', 'yolo', '--sandbox', 'off']);
    expect(toolResults()[0]).not.toMatch(/^0\n/);
  });

  test('secret dirs are hidden, nib config included', async () => {
    await mkdir(join(home.home, '.ssh'));
    await writeFile(join(home.home, '.ssh', 'id_ed25519'), 'PRIVATE');
    await nib([bash(`cat ${home.home}/.ssh/id_ed25519; ls -A ${home.home}/.ssh | wc -l`)], ['--approval-mode', 'yolo']);
    expect(toolResults()[0]).not.toContain('PRIVATE');
    expect(toolResults()[0]).toMatch(/No such file/);
  });

  test('--sandbox off: the command reaches outside the workspace as before', async () => {
    const result = await nib([bash('touch ../outside.txt')], ['--approval-mode', 'yolo', '--sandbox', 'off']);
    expect(result.code).toBe(0);
    expect(existsSync(join(home.root, 'outside.txt'))).toBe(true);
  });

  test('auto-edit runs sandboxed commands without asking, and refuses them with the sandbox off', async () => {
    await nib([bash('echo ran > ran.txt')], ['--approval-mode', 'auto-edit']);
    expect(await readFile(join(home.workspace, 'ran.txt'), 'utf8')).toBe('ran\n');
    const off = await nib([bash('echo again > again.txt')], ['--approval-mode', 'auto-edit', '--sandbox', 'off']);
    expect(off.code).toBe(0);
    expect(existsSync(join(home.workspace, 'again.txt'))).toBe(false);
    expect(toolResults()[0]).toMatch(/bash was not run/);
  });

  test('without bwrap: auto says so in one line and runs unsandboxed; on fails clearly', async () => {
    const bin = join(home.root, 'bin');
    await mkdir(bin);
    await symlink('/bin/bash', join(bin, 'bash'));
    const env = {PATH: bin};
    const auto = await nib([bash(': > ../outside.txt')], ['--approval-mode', 'yolo'], env);
    expect(auto.code).toBe(0);
    expect(auto.stderr).toMatch(/nib: Commands run unsandboxed: bwrap is not installed; install the bubblewrap package/);
    expect(existsSync(join(home.root, 'outside.txt'))).toBe(true);
    const on = await nib([], ['--sandbox', 'on'], env);
    expect(on.code).not.toBe(0);
    expect(on.stderr).toMatch(/--sandbox on: commands cannot be sandboxed: bwrap is not installed/);
    expect(server!.requests).toHaveLength(0);
  });

  test('a bad --sandbox value and a bad config value are clear errors', async () => {
    const flag = await nib([], ['--sandbox', 'maybe']);
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toMatch(/--sandbox must be one of auto, on, off, not "maybe"/);
    await mkdir(join(home.home, '.config', 'nib'), {recursive: true});
    await writeFile(join(home.home, '.config', 'nib', 'config.json'), JSON.stringify({sandbox: {network: 'yes'}}));
    const file = await nib([], []);
    expect(file.code).not.toBe(0);
    expect(file.stderr).toMatch(/config\.json: field "sandbox/);
  });
});
