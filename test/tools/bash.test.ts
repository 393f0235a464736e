import {readdirSync, readFileSync} from 'node:fs';
import {readdir, readFile} from 'node:fs/promises';
import path from 'node:path';
import {describe, expect, test} from 'vitest';
import {bashTool, createBashTool} from '../../source/tools/index.js';
import {contextFor, never, useTempDirs} from './helpers.js';

const tempDir = useTempDirs();

type Process = {pid: number; pgid: number; args: string};

/**
 * Live processes whose command line contains `marker`, read from the process table in /proc
 * (not `ps`, which a slim CI image may lack). Zombies are dead already and do not count.
 */
function processesWith(marker: string): Process[] {
  const found: Process[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (!args.includes(marker)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') found.push({pid: Number(entry), pgid: Number(pgid), args});
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

describe('bash', () => {
  test('runs in the workspace with the non-interactive environment, stdout and stderr in order', async () => {
    const root = await tempDir();
    const result = await bashTool.run(
      {command: 'pwd; echo one; echo two >&2; echo three; echo "$CI $GIT_TERMINAL_PROMPT $PAGER $GIT_PAGER $DEBIAN_FRONTEND"; exit 3'},
      contextFor(root),
      never,
    );
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      new RegExp(`^${root}\\none\\ntwo\\nthree\\n1 0 cat cat noninteractive\\n\\n\\[Exit code 3 after \\d+\\.\\d s\\.\\]$`),
    );
    expect(result.detail).toMatchObject({exitCode: 3, signal: null});
    expect(result.detail?.summary).toMatch(/^exit 3 · \d+\.\d s$/);
  });

  test('the API key is not in the environment of commands', async () => {
    const root = await tempDir();
    process.env.OPENAI_API_KEY = 'sk-test-secret-value';
    try {
      const result = await bashTool.run({command: 'env'}, contextFor(root), never);
      expect(result.content).not.toContain('sk-test-secret-value');
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  test('`read -r x` (waiting on stdin) ends at once: stdin is closed', async () => {
    const root = await tempDir();
    const started = Date.now();
    const result = await bashTool.run({command: 'read -r x; echo "got [$x] $?"', timeout: 60}, contextFor(root), never);
    expect(result.content).toMatch(/^got \[\] 1\n/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('a timeout kills the whole process group, background children included', async () => {
    const root = await tempDir();
    const marker = `${90_000 + Math.floor(Math.random() * 9_000)}`;
    const started = Date.now();
    const result = await bashTool.run({command: `sleep ${marker} & sleep ${marker}`, timeout: 1}, contextFor(root), never);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result).toMatchObject({isError: true});
    expect(result.content).toContain('Timed out after 1.0 s');
    expect(result.detail?.summary).toMatch(/^timeout · /);
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
  });

  test('a child that ignores SIGTERM is killed after the grace period', async () => {
    const root = await tempDir();
    const marker = `${80_000 + Math.floor(Math.random() * 9_000)}`;
    const tool = createBashTool({killGraceMs: 300});
    const result = await tool.run({command: `trap '' TERM; sleep ${marker} & trap '' TERM; sleep ${marker}`, timeout: 0.5}, contextFor(root), never);
    expect(result.content).toContain('Timed out');
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
  });

  test('an abort kills the group and says so', async () => {
    const root = await tempDir();
    const marker = `${70_000 + Math.floor(Math.random() * 9_000)}`;
    const controller = new AbortController();
    const chunks: string[] = [];
    const ctx = contextFor(root, {
      onOutput: chunk => {
        chunks.push(chunk);
        if (chunk.includes('ready')) controller.abort();
      },
    });
    const result = await bashTool.run({command: `echo ready; sleep ${marker}`}, ctx, controller.signal);
    // bash execs the last command of its script, so the sleep is the only process left to end.
    expect(result.content).toMatch(new RegExp(`^ready\\n\\n\\[Interrupted by the person: ended 1 process: sleep ${marker} \\(pid \\d+\\)\\.\\]$`));
    expect(chunks.join('')).toBe('ready\n');
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
  });

  test("an interrupted sandboxed command names the command's processes, not bubblewrap's", async () => {
    const root = await tempDir();
    const marker = `${60_000 + Math.floor(Math.random() * 9_000)}`;
    const controller = new AbortController();
    const ctx = contextFor(root, {
      wrap: plain => ['bwrap', '--dev-bind', '/', '/', '--unshare-pid', '--die-with-parent', ...plain],
      onOutput: chunk => chunk.includes('ready') && controller.abort(),
    });
    const result = await bashTool.run({command: `echo ready; sleep ${marker}`}, ctx, controller.signal);
    expect(result.content).toMatch(new RegExp(`\\[Interrupted by the person: ended 1 process: sleep ${marker} \\(pid \\d+\\) \\(and the sandbox around them\\)\\.\\]$`));
    expect(result.content).not.toContain('bwrap');
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
  });

  test('a timeout ends processes that left the group (setsid, nohup, a double fork) and names them', async () => {
    const root = await tempDir();
    const marker = `${50_000 + Math.floor(Math.random() * 9_000)}`;
    const command = `setsid sleep ${marker}1 & nohup sleep ${marker}2 >/dev/null 2>&1 & (setsid sh -c 'sleep ${marker}3 & :' &) ; sleep ${marker}4`;
    try {
      const result = await createBashTool({killGraceMs: 500}).run({command, timeout: 1}, contextFor(root), never);
      expect(result.content).toMatch(/\[Timed out after 1\.0 s: ended [45] processes: /);
      for (const n of [1, 2, 3, 4]) expect(result.content).toContain(`sleep ${marker}${n} (pid `);
      expect(processesWith(`sleep ${marker}`)).toEqual([]);
    } finally {
      for (const {pid} of processesWith(`sleep ${marker}`)) process.kill(pid, 'SIGKILL');
    }
  });

  test('an abort ends a setsid child too', async () => {
    const root = await tempDir();
    const marker = `${40_000 + Math.floor(Math.random() * 9_000)}`;
    const controller = new AbortController();
    const ctx = contextFor(root, {onOutput: chunk => chunk.includes('ready') && controller.abort()});
    try {
      const result = await bashTool.run({command: `setsid sleep ${marker} & echo ready; wait`}, ctx, controller.signal);
      expect(result.content).toContain(`sleep ${marker} (pid `);
      expect(processesWith(`sleep ${marker}`)).toEqual([]);
    } finally {
      for (const {pid} of processesWith(`sleep ${marker}`)) process.kill(pid, 'SIGKILL');
    }
  });

  test('an already aborted call does not start the command', async () => {
    const root = await tempDir();
    const controller = new AbortController();
    controller.abort();
    const result = await bashTool.run({command: 'touch ran'}, contextFor(root), controller.signal);
    expect(result).toMatchObject({isError: true, code: 'aborted'});
    expect(await readdir(root)).toEqual([]);
  });

  test('50 MB of output: a bounded result, tail intact, and a spill file bounded to its first 16 MiB and last 4 MiB, in under 3 s', async () => {
    const root = await tempDir();
    const started = Date.now();
    const tool = createBashTool({spillDir: root});
    const result = await tool.run(
      {command: "head -c 50000000 /dev/zero | tr '\\0' 'a'; echo; echo THE-END"},
      contextFor(root),
      never,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    // Assertions on pieces: a failure must not print 40 KiB of "a".
    expect(result.content.length).toBeLessThan(40 * 1024);
    expect(result.content.startsWith('a'.repeat(8192) + '\n[…')).toBe(true);
    const marker = /\[… [\d,]+ bytes of output dropped; the first 16 MiB and last 4 MiB are in \S+\.log …\]/.exec(result.content)?.[0];
    expect(marker).toMatch(/^\[… 49,967,241 bytes of output dropped/);
    expect(result.content.slice(-60)).toMatch(/a\nTHE-END\n\n\[Exit code 0 after \d+\.\d s\.\]$/);
    const spill = /are in (\S+\.log)/.exec(result.content)![1]!;
    expect(path.dirname(spill)).toBe(root);
    const full = await readFile(spill);
    expect(full.length).toBeLessThanOrEqual(16 * 1024 * 1024 + 200);
    expect(full.subarray(0, 16 * 1024 * 1024).equals(Buffer.alloc(16 * 1024 * 1024, 'a'))).toBe(true);
    // The last 4 MiB start inside the long line of "a": the tail begins at the next whole line.
    expect(full.subarray(16 * 1024 * 1024).toString()).toBe(
      "\n[… 33,222,785 bytes dropped here: nib keeps the first 16 MiB and the last 4 MiB of a command's output …]\nTHE-END\n",
    );
  });

  test('an unwritable spill directory does not hang the call: head and tail, and why nothing was saved', {timeout: 20_000}, async () => {
    const root = await tempDir();
    // The temp dir is gone (or unwritable): the spill file fails to open, and the output that
    // was paused waiting for it must still flow to the end.
    const tool = createBashTool({spillDir: path.join(root, 'missing', 'tmp')});
    const result = await tool.run(
      {command: "head -c 4000000 /dev/zero | tr '\\0' 'a'; echo; echo THE-END"},
      contextFor(root),
      never,
    );
    expect(result.content.length).toBeLessThan(40 * 1024);
    expect(result.content.startsWith('a'.repeat(8192) + '\n[…')).toBe(true);
    expect(result.content).toMatch(/bytes of output dropped; the full output could not be saved \(ENOENT[^)]*\) …\]/);
    expect(result.content.slice(-60)).toMatch(/a\nTHE-END\n\n\[Exit code 0 after \d+\.\d s\.\]$/);
  });

  test('a background child holding the output open does not hold the call', async () => {
    const root = await tempDir();
    const marker = `${60_000 + Math.floor(Math.random() * 9_000)}`;
    const started = Date.now();
    const result = await bashTool.run({command: `sleep ${marker} & echo started`}, contextFor(root), never);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.content).toContain('started\n\n[Exit code 0');
    expect(result.content).toContain('A background process is still running');
    expect(result.content).toMatch(new RegExp(`Still running in the background: 1 process: sleep ${marker} \\(pid \\d+\\); nib ends them when it exits\\.`));
    // Also proves the process-table check used above can see a live sleep.
    const survivors = processesWith(`sleep ${marker}`);
    expect(survivors).toHaveLength(1);
    for (const {pid} of survivors) process.kill(pid);
  });

  test('a background child that keeps writing does not hold the call either', async () => {
    const root = await tempDir();
    const marker = `tick${Math.floor(Math.random() * 1e9)}`;
    const started = Date.now();
    const result = await bashTool.run({command: `bash -c 'while true; do echo ${marker}; sleep 0.02; done' & echo started`}, contextFor(root), never);
    expect(Date.now() - started).toBeLessThan(5_000);
    // The child may write its first tick before `echo started` does (a loaded machine, once in CI).
    expect(result.content.split('\n')).toContain('started');
    expect(result.content).toContain('A background process is still running');
    for (const {pgid} of processesWith(`echo ${marker}`)) process.kill(-pgid, 'SIGKILL');
  });

  test('preview shows the command and where it runs; runEdited runs the edited command', async () => {
    const root = await tempDir();
    const ctx = contextFor(root);
    expect(await bashTool.preview({command: 'npm test'}, ctx)).toEqual({
      title: 'bash npm test',
      outside: false,
      command: {command: 'npm test', cwd: root},
      editable: 'npm test',
    });
    const result = await bashTool.runEdited!({command: 'echo model'}, 'echo person', ctx, never);
    expect(result.content).toMatch(/^person\n/);
  });

  test('no output is said plainly', async () => {
    const root = await tempDir();
    const result = await bashTool.run({command: 'true'}, contextFor(root), never);
    expect(result.content).toMatch(/^\(no output\)\n\n\[Exit code 0 after/);
    expect(result.isError).toBe(false);
  });
});
