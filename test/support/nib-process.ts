/**
 * Runs the built CLI (`dist/cli.js`, from `npm run build`) as a child process, the way a person
 * or a script would, with HOME and every XDG dir pointed into a temp dir so no user config leaks
 * in and everything nib writes can be inspected afterwards.
 *
 *   const sandbox = await createSandbox();
 *   const result = await runNib(sandbox, ['-p', 'hi', '--base-url', server.url]);
 *   result.code, result.stdout, result.stderr, result.ms
 *   await sandbox.cleanup();
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {existsSync} from 'node:fs';
import {readdir, readFile} from 'node:fs/promises';
import {join} from 'node:path';
import type {Sandbox} from './sandbox.js';
import {fileURLToPath} from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export {createSandbox, TEST_API_KEY, type Sandbox} from './sandbox.js';

export type NibResult = {code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number};

export type NibProcess = {
  child: ChildProcess;
  /** Resolves when stdout (so far) satisfies the predicate. */
  waitForStdout: (predicate: (stdout: string) => boolean) => Promise<void>;
  done: Promise<NibResult>;
};

export function startNib(
  sandbox: Sandbox,
  args: readonly string[],
  options: {env?: NodeJS.ProcessEnv; stdin?: string; cwd?: string} = {},
): NibProcess {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? sandbox.workspace,
    env: {...sandbox.env, ...options.env},
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  let stdout = '';
  let stderr = '';
  const watchers: Array<{predicate: (s: string) => boolean; resolve: () => void}> = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const watcher of watchers.splice(0)) {
      if (watcher.predicate(stdout)) watcher.resolve();
      else watchers.push(watcher);
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<NibResult>(resolve => {
    child.on('close', (code, signal) => resolve({code, signal, stdout, stderr, ms: performance.now() - started}));
  });
  return {
    child,
    waitForStdout: predicate =>
      predicate(stdout)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            watchers.push({predicate, resolve});
            void done.then(result => reject(new Error(`nib exited (${result.code}) first; stderr: ${result.stderr}`)));
          }),
    done,
  };
}

export function runNib(
  sandbox: Sandbox,
  args: readonly string[],
  options: {env?: NodeJS.ProcessEnv; stdin?: string; cwd?: string} = {},
): Promise<NibResult> {
  return startNib(sandbox, args, options).done;
}

/** Every file under `dir` whose bytes contain `needle` (for the API-key leak check). */
export async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const entry of await readdir(dir, {withFileTypes: true, recursive: true})) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path)).includes(needle)) hits.push(path);
  }
  return hits;
}

/** Parses `--output-format json` output, one event per line. */
export function jsonEvents(stdout: string): Array<Record<string, any>> {
  return stdout
    .split('\n')
    .filter(line => line.trim() !== '')
    .map(line => JSON.parse(line) as Record<string, any>);
}
