import {spawn} from 'node:child_process';
import {openSync, closeSync} from 'node:fs';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {CLI, createSandbox, runNib, type NibResult, type Sandbox} from '../support/nib-process.js';

// What nib bounds and cleans up when it runs as a program: stdin, protected paths, processes.

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

/** Runs nib with stdin read from `file` (a device or a regular file), as a shell `<` would. */
function nibWithStdinFrom(file: string, args: readonly string[]): Promise<NibResult> {
  const started = performance.now();
  const fd = openSync(file, 'r');
  const child = spawn(process.execPath, [CLI, ...args], {cwd: sandbox.workspace, env: sandbox.env, stdio: [fd, 'pipe', 'pipe']});
  closeSync(fd);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
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
