// Shared by the benches: the real loopback test server (TypeScript, bundled on the fly into a
// temp dir) and a child-process runner that reports wall time, CPU and peak RSS.
import {build} from 'esbuild';
import {spawn} from 'node:child_process';
import {existsSync, statfsSync} from 'node:fs';
import {mkdir, mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** NIB_BENCH_CLI points the benches at another build, to compare two. */
export const CLI = process.env.NIB_BENCH_CLI ?? join(ROOT, 'dist', 'cli.js');

/**
 * The builds a bench measures, as [label, cli]: `cli`, and with NIB_BENCH_BASELINE=<other
 * dist/cli.js> that build too, measured in the same run as the baseline.
 */
export function builds([label, baselineLabel] = ['', ' (baseline)'], cli = CLI) {
  const baseline = process.env.NIB_BENCH_BASELINE;
  return [[label, cli], ...(baseline ? [[baselineLabel, baseline]] : [])];
}

export const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export function requireBuild() {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
}

/**
 * Imports TypeScript sources for a bench: `entries` maps a name to a path from the repository
 * root; each is bundled with esbuild into a temp dir, imported, and returned under its name.
 */
export async function importSources(entries) {
  const outdir = await mkdtemp(join(tmpdir(), 'nib-bench-src-'));
  try {
    await build({
      entryPoints: Object.fromEntries(Object.entries(entries).map(([name, path]) => [name, join(ROOT, path)])),
      outdir,
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'warning',
      outExtension: {'.js': '.mjs'},
    });
    const modules = {};
    for (const name of Object.keys(entries)) modules[name] = await import(pathToFileURL(join(outdir, `${name}.mjs`)).href);
    return modules;
  } finally {
    await rm(outdir, {recursive: true, force: true});
  }
}

/** The real loopback test server (test/support/openai-server.ts) and its SSE builders. */
export async function loadTestServer() {
  const {server, sse} = await importSources({server: 'test/support/openai-server.ts', sse: 'test/support/sse.ts'});
  return {startOpenAiServer: server.startOpenAiServer, sse: sse.sse};
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

/**
 * A scratch directory for a generated file tree: on tmpfs when it has room (each tiny file takes
 * a 4 KiB page; Docker's default /dev/shm is 64 MB), since creating 50,000 files on a busy disk
 * takes longer than the bench itself.
 */
export async function treeDir(prefix) {
  let shmFree = 0;
  try {
    const {bavail, bsize} = statfsSync('/dev/shm');
    shmFree = bavail * bsize;
  } catch {
    // no /dev/shm: the temp dir it is
  }
  return realpath(await mkdtemp(join(shmFree > 1024 ** 3 ? '/dev/shm' : tmpdir(), prefix)));
}

/** A workspace of `files` small TypeScript files under `root`, 100 to a folder (pkgN/src/fM.ts). */
export async function writeTree(root, files) {
  for (let dir = 0; dir < files / 100; dir++) {
    const folder = join(root, `pkg${dir}`, 'src');
    await mkdir(folder, {recursive: true});
    await Promise.all(Array.from({length: 100}, (_, file) =>
      writeFile(join(folder, `f${file}.ts`), `export const v${dir}_${file} = ${dir * 100 + file};\n`.repeat(8))));
  }
}
