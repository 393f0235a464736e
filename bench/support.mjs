// Shared by the benches: the real loopback test server (TypeScript, bundled on the fly into a
// temp dir) and a child-process runner that reports wall time, CPU and peak RSS.
import {build} from 'esbuild';
import {spawn} from 'node:child_process';
import {existsSync} from 'node:fs';
import {mkdtemp, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** NIB_BENCH_CLI points the benches at another build, to compare two. */
export const CLI = process.env.NIB_BENCH_CLI ?? join(ROOT, 'dist', 'cli.js');

export const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export function requireBuild() {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
}

/** Imports test/support/openai-server.ts and sse.ts (bundled with esbuild). */
export async function loadTestServer() {
  const outdir = await mkdtemp(join(tmpdir(), 'nib-bench-server-'));
  await build({
    entryPoints: {server: join(ROOT, 'test/support/openai-server.ts'), sse: join(ROOT, 'test/support/sse.ts')},
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'warning',
    outExtension: {'.js': '.mjs'},
  });
  const {startOpenAiServer} = await import(pathToFileURL(join(outdir, 'server.mjs')).href);
  const {sse} = await import(pathToFileURL(join(outdir, 'sse.mjs')).href);
  await rm(outdir, {recursive: true, force: true});
  return {startOpenAiServer, sse};
}

/**
 * Runs a command to completion under /usr/bin/time (when present) for its rusage: wall ms, CPU ms
 * (user + sys) and peak RSS in MB. stdout is counted, not kept.
 */
export async function measure(command, args, options = {}) {
  const timeOut = join(await mkdtemp(join(tmpdir(), 'nib-bench-time-')), 'time');
  const hasTime = existsSync('/usr/bin/time');
  const [file, argv] = hasTime
    ? ['/usr/bin/time', ['-o', timeOut, '-f', '%e %U %S %M', command, ...args]]
    : [command, args];
  const started = performance.now();
  const child = spawn(file, argv, {stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env, cwd: options.cwd});
  let stdoutBytes = 0;
  let stderr = '';
  child.stdout.on('data', chunk => (stdoutBytes += chunk.length));
  child.stderr.on('data', chunk => (stderr += chunk));
  const code = await new Promise(resolve => child.on('close', resolve));
  const wallMs = performance.now() - started;
  let cpuMs = NaN;
  let rssMb = NaN;
  if (hasTime) {
    const [, user, sys, rssKb] = (await readFile(timeOut, 'utf8')).trim().split('\n').at(-1).split(' ').map(Number);
    cpuMs = (user + sys) * 1000;
    rssMb = rssKb / 1024;
  }
  await rm(join(timeOut, '..'), {recursive: true, force: true});
  return {code, wallMs, cpuMs, rssMb, stdoutBytes, stderr};
}
