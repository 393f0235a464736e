// What the build's generators share: bundling a TypeScript module of nib's to import it from a
// plain script, and writing a generated file only when its text changed.
import {build} from 'esbuild';
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * `contents`, a TypeScript module resolved from the repository root, bundled into a temp dir and
 * imported; the temp dir is gone when this returns.
 */
export async function importBundled(contents, plugins = []) {
  const outdir = await mkdtemp(join(tmpdir(), 'nib-generate-'));
  try {
    const outfile = join(outdir, 'bundle.mjs');
    await build({stdin: {contents, resolveDir: ROOT, loader: 'ts'}, outfile, bundle: true, platform: 'node', format: 'esm', logLevel: 'warning', plugins});
    return await import(pathToFileURL(outfile).href);
  } finally {
    await rm(outdir, {recursive: true, force: true});
  }
}

/** Writes `text` to `output` unless the file already holds it (so its mtime stays put). */
export async function writeGenerated(output, text) {
  if ((await readFile(output, 'utf8').catch(() => '')) !== text) await writeFile(output, text);
}

/** A generator run as a script (`node scripts/NAME.mjs`) writes its file. */
export async function whenRunDirectly(scriptUrl, output, generate) {
  if (process.argv[1] && pathToFileURL(process.argv[1]).href === scriptUrl) await writeGenerated(output, await generate());
}
