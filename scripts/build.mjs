// One bundled file starts faster than hundreds of resolved modules, and the
// production define keeps React's development reconciler (which records a
// performance mark per render and grows without bound) out of long sessions.
import {build} from 'esbuild';
import {chmod, readdir, readFile, rm, stat, writeFile} from 'node:fs/promises';
import {basename, join} from 'node:path';
import {inkFrameLog, lazyForMarkedTerminal, zodEnglishOnly} from './build-plugins.mjs';
import {inkPatches} from './ink-patches.mjs';
import {writeGenerated} from './generated.mjs';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
// `npm pack` (prepack) builds with --clean: the package gets exactly this build's files.
if (process.argv.includes('--clean')) await rm('dist', {recursive: true, force: true});

// The tools' and the config file's JSON Schemas as plain data, fresh for every build (each script
// says why).
for (const script of ['./tool-definitions.mjs', './config-schema.mjs']) {
  const {OUTPUT, generate} = await import(script);
  await writeGenerated(OUTPUT, await generate());
}

const result = await build({
  metafile: true,
  entryPoints: ['source/cli.tsx'],
  // Code splitting: cli.tsx import()s the print path and the Ink app, so `nib --version` loads
  // neither and `nib -p` never loads React. dist/cli.js stays the entry (package.json bin).
  outdir: 'dist',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  jsx: 'automatic',
  // Measured with bench/startup.mjs: minifying cuts `nib -p` startup by ~45 ms (less to read and
  // compile). keepNames keeps `.name` of functions and classes, which some code relies on.
  minify: true,
  keepNames: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  define: {
    'process.env.NODE_ENV': '"production"',
    NIB_VERSION: JSON.stringify(pkg.version),
  },
  // ink loads the devtools bridge only when DEV=true; it is an optional peer we do not ship.
  external: ['react-devtools-core'],
  plugins: [inkFrameLog(), ...inkPatches(), zodEnglishOnly(), lazyForMarkedTerminal()],
  banner: {
    js: [
      '#!/usr/bin/env node',
      "import {createRequire as __nibCreateRequire} from 'node:module';",
      'const require = __nibCreateRequire(import.meta.url);',
    ].join('\n'),
  },
});
await chmod('dist/cli.js', 0o755);

// esbuild escapes what is outside ASCII in strings, not in regular expressions. One character past
// Latin-1 there has V8 hold its whole chunk's source at two bytes a character (the interactive
// chunk: 1 MB instead of 0.5 for as long as the session runs), so the build fails on any character
// outside ASCII and says where.
for (const path of Object.keys(result.metafile.outputs)) {
  if (!path.endsWith('.js')) continue;
  const text = await readFile(path, 'utf8');
  const at = text.search(/[^\x00-\x7F]/);
  if (at !== -1) throw new Error(`${path} is not ASCII at ${at}: …${text.slice(Math.max(0, at - 60), at + 20)}… (write it as a \\u escape, or patch the package that has it)`);
}

// Chunk names carry a content hash, so every change leaves the old ones behind; remove those to
// keep dist/ what ships. Only ones unused for a while: a nib started just before this build (a
// test running alongside) still import()s the chunks its cli.js names.
const current = new Set(Object.keys(result.metafile.outputs).map(path => basename(path)));
const staleBefore = Date.now() - 10 * 60_000;
for (const name of await readdir('dist/chunks')) {
  if (current.has(name)) continue;
  const path = `dist/chunks/${name}`;
  if ((await stat(path)).mtimeMs < staleBefore) await rm(path, {force: true});
}

// The bundle carries the code of the libraries it uses, so their licenses travel with it.
await writeFile('dist/THIRD-PARTY-LICENSES.txt', await thirdPartyLicenses(Object.keys(result.metafile.inputs)));

async function thirdPartyLicenses(inputs) {
  const dirs = new Set();
  for (const input of inputs) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) dirs.add(match[1]);
  }
  const sections = [];
  for (const dir of [...dirs].sort()) {
    const meta = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    const file = (await readdir(dir)).find(name => /^(licen[cs]e|copying)/i.test(name));
    const text = file ? await readFile(join(dir, file), 'utf8') : `License: ${meta.license ?? 'see the package'}`;
    sections.push(`${meta.name}@${meta.version} (${meta.license ?? 'unknown'})\n\n${text.trim()}\n`);
  }
  return `nib bundles the following packages.\n\n${sections.join(`\n${'-'.repeat(72)}\n\n`)}`;
}
