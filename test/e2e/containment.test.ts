import {spawn} from 'node:child_process';
import {closeSync, existsSync, openSync, readdirSync, readFileSync} from 'node:fs';
import {mkdir, readdir, readFile, utimes, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {startOpenAiServer, type OpenAiServer} from '../support/openai-server.js';
import {sse, type StreamResponse} from '../support/sse.js';
import {CLI, createSandbox, runNib, startNib, type NibResult, type Sandbox} from '../support/nib-process.js';

// What nib bounds and cleans up when it runs as a program: stdin, protected paths, processes.

let sandbox: Sandbox;
/** The server of the current test, if it started one; closed with the sandbox. */
let server: OpenAiServer | undefined;

beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(async () => {
  await Promise.all([server?.close(), sandbox.cleanup()]);
  server = undefined;
});

async function nib(turns: StreamResponse[], mode: string, extra: readonly string[] = []): Promise<NibResult> {
  await server?.close();
  server = await startOpenAiServer([...turns, sse.text('Done.')]);
  return runNib(sandbox, ['-p', 'go', '--base-url', server.url, '--model', 'm', '--approval-mode', mode, ...extra]);
}

/** The tool messages nib sent back, in order. */
function toolResults(): string[] {
  return server!.requests.at(-1)!.body.messages.filter(m => m.role === 'tool').map(m => String(m.content));
}

/** Runs nib with stdin read from `file` (a device or a regular file), as a shell `<` would. */
function nibWithStdinFrom(file: string, args: readonly string[]): Promise<NibResult> {
  const started = performance.now();
  const fd = openSync(file, 'r');
  const child = spawn(process.execPath, [CLI, ...args], {cwd: sandbox.workspace, env: sandbox.env, stdio: [fd, 'pipe', 'pipe']});
  closeSync(fd);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    // Without a cap nib reads /dev/zero until memory runs out; a bound here keeps the failure a failure.
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('nib was still reading stdin after 20 s'));
    }, 20_000);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({code, signal, stdout, stderr, ms: performance.now() - started});
    });
  });
}

describe('stdin is bounded', () => {
  test('nib -p < /dev/zero stops at the 10 MiB cap with a clear error and exit 1', async () => {
    const result = await nibWithStdinFrom('/dev/zero', ['-p', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'nib: the prompt on stdin is over 10 MiB; nib stopped reading it. Pass a shorter prompt, or put the material in a file and ask nib to read it\n',
    );
    expect(result.stdout).toBe('');
  });

  test('a piped prompt just over the cap is refused the same way; no request is made', async () => {
    const result = await runNib(sandbox, ['-p', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'], {
      stdin: 'x'.repeat(10 * 1024 * 1024 + 1),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^nib: the prompt on stdin is over 10 MiB/);
  });
});

describe('version-control directories', () => {
  const config = '[core]\n\tbare = false\n';
  const hostile = '[core]\n\tfsmonitor = touch /tmp/pwned\n';

  async function repo(): Promise<void> {
    await mkdir(join(sandbox.workspace, '.git', 'hooks'), {recursive: true});
    await writeFile(join(sandbox.workspace, '.git', 'config'), config);
  }

  test('auto-edit in print mode refuses writes into .git (write and edit), other files are written', async () => {
    await repo();
    const result = await nib(
      [
        sse.toolCall('read', {path: '.git/config'}),
        sse.toolCall('write', {path: '.git/config', content: hostile}),
        sse.toolCall('edit', {path: '.git/config', old_string: 'bare = false', new_string: 'fsmonitor = touch /tmp/pwned'}),
        sse.toolCall('write', {path: '.git/hooks/pre-commit', content: '#!/bin/sh\n'}),
        sse.toolCall('write', {path: 'notes.txt', content: 'fine\n'}),
      ],
      'auto-edit',
    );
    expect(result.code).toBe(0);
    const [, write, edit, hook, notes] = toolResults();
    for (const refused of [write, edit, hook]) {
      expect(refused).toMatch(/^(write|edit) was not run: it writes inside \.git\/, a version-control directory, which needs the user's approval/);
    }
    expect(notes).toMatch(/^Created notes.txt/);
    expect(await readFile(join(sandbox.workspace, '.git', 'config'), 'utf8')).toBe(config);
    expect(await readFile(join(sandbox.workspace, 'notes.txt'), 'utf8')).toBe('fine\n');
  });

  test('auto-edit in print mode refuses writes to .nib/ settings and commands and to .mcp.json', async () => {
    await repo();
    const result = await nib(
      [
        sse.toolCall('write', {path: '.nib/settings.local.json', content: '{"permissions": {"allow": ["bash"]}}\n'}),
        sse.toolCall('write', {path: '.nib/commands/x.md', content: 'hi\n'}),
        sse.toolCall('write', {path: '.mcp.json', content: '{}\n'}),
      ],
      'auto-edit',
    );
    expect(result.code).toBe(0);
    const [settings, command, mcp] = toolResults();
    expect(settings).toMatch(/^write was not run: it writes inside \.nib\/, nib's project settings, hooks and commands, which needs the user's approval/);
    expect(command).toMatch(/^write was not run: it writes inside \.nib\//);
    expect(mcp).toMatch(/^write was not run: it writes inside \.mcp\.json, the project's MCP servers/);
    expect(existsSync(join(sandbox.workspace, '.nib'))).toBe(false);
    expect(existsSync(join(sandbox.workspace, '.mcp.json'))).toBe(false);
  });

  test('yolo in print mode writes into .git: the person allowed everything in advance', async () => {
    await repo();
    const result = await nib([sse.toolCall('read', {path: '.git/config'}), sse.toolCall('write', {path: '.git/config', content: hostile})], 'yolo');
    expect(result.code).toBe(0);
    expect(toolResults()[1]).toMatch(/^Updated \.git\/config/);
    expect(await readFile(join(sandbox.workspace, '.git', 'config'), 'utf8')).toBe(hostile);
  });
});

/** Live processes whose command line contains `needle`, with the nib marker from their environment. */
function processesWith(needle: string): Array<{pid: number; args: string; marker: string | null}> {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (!args.includes(needle)) continue;
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      // A zombie has an empty environ and is dead already.
      if (environ.length <= 1) continue;
      const marker = environ.find(line => line.startsWith('NIB_RUN_ID='))?.slice('NIB_RUN_ID='.length) ?? null;
      found.push({pid: Number(entry), args, marker});
    } catch {
      // gone while we looked
    }
  }
  return found;
}

describe('processes a command started end with nib', () => {
  test('background jobs (setsid, nohup, a double fork) of a finished command are ended when nib -p exits', async () => {
    const tag = `${20_000 + Math.floor(Math.random() * 9_000)}`;
    const command = `setsid sleep ${tag}1 & nohup sleep ${tag}2 >/dev/null 2>&1 & (setsid sh -c 'sleep ${tag}3 & :' &); sleep 0.3; echo started`;
    try {
      // Unsandboxed they outlive the command until nib exits; in the sandbox the pid namespace
      // ends them with the command.
      const result = await nib([sse.toolCall('bash', {command})], 'yolo', ['--sandbox', 'off']);
      expect(result.code).toBe(0);
      expect(toolResults()[0]).toMatch(/Still running in the background: 3 processes: /);
      expect(processesWith(`sleep ${tag}`)).toEqual([]);
      const sandboxed = await nib([sse.toolCall('bash', {command})], 'yolo');
      expect(sandboxed.code).toBe(0);
      expect(toolResults()[0]).toMatch(/^started\n/);
      expect(toolResults()[0]).not.toMatch(/Still running/);
      expect(processesWith(`sleep ${tag}`)).toEqual([]);
    } finally {
      for (const {pid} of processesWith(`sleep ${tag}`)) process.kill(pid, 'SIGKILL');
    }
  });

  test('SIGTERM to nib -p during a command ends the setsid children too', async () => {
    const tag = `${30_000 + Math.floor(Math.random() * 9_000)}`;
    server = await startOpenAiServer([sse.toolCall('bash', {command: `setsid sleep ${tag}1 & sleep ${tag}2`}), sse.text('Done.')]);
    const running = startNib(sandbox, ['-p', 'go', '--base-url', server.url, '--model', 'm', '--approval-mode', 'yolo', '--output-format', 'json']);
    try {
      await running.waitForStdout(out => out.includes('"type":"tool-start"'));
      // The command has started once both sleeps carry nib's marker.
      for (let i = 0; i < 100 && processesWith(`sleep ${tag}`).length < 2; i += 1) await new Promise(resolve => setTimeout(resolve, 20));
      expect(processesWith(`sleep ${tag}`).every(p => p.marker !== null)).toBe(true);
      running.child.kill('SIGTERM');
      expect((await running.done).code).toBe(143);
      expect(processesWith(`sleep ${tag}`)).toEqual([]);
    } finally {
      for (const {pid} of processesWith(`sleep ${tag}`)) process.kill(pid, 'SIGKILL');
    }
  });
});

describe('spill files', () => {
  test('a long output spills to $TMPDIR; the file is gone when nib -p exits, and stale ones of a crashed nib (its sandbox /tmp too) are swept at start', async () => {
    const tmp = sandbox.env.TMPDIR!;
    // A spill file of a nib that crashed two days ago (pid 2^22 + 1 is above any pid_max).
    const stale = 'nib-bash-4194305-0123456789ab.log';
    await writeFile(join(tmp, stale), 'old output');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    await utimes(join(tmp, stale), twoDaysAgo, twoDaysAgo);
    // And the sandbox /tmp of a session killed after a command wrote to it.
    const staleTmp = 'nib-sandbox-4194305-Ab12Cd';
    await mkdir(join(tmp, staleTmp, 'build'), {recursive: true});
    await writeFile(join(tmp, staleTmp, 'build', 'big.o'), 'object code');
    await utimes(join(tmp, staleTmp), twoDaysAgo, twoDaysAgo);

    const result = await nib([sse.toolCall('bash', {command: "head -c 300000 /dev/zero | tr '\\0' 'a'; echo; echo END"})], 'yolo');
    expect(result.code).toBe(0);
    const spill = /the full output is in (\S+\.log)/.exec(toolResults()[0]!)?.[1];
    expect(spill).toMatch(new RegExp(`^${tmp}/nib-bash-\\d+-[0-9a-f]+\\.log$`));
    expect((await readdir(tmp)).filter(name => name.startsWith('nib-bash-') || name.startsWith('nib-sandbox-'))).toEqual([]);
  });
});
