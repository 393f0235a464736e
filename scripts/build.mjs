// One bundled file starts faster than hundreds of resolved modules, and the
// production define keeps React's development reconciler (which records a
// performance mark per render and grows without bound) out of long sessions.
import {build} from 'esbuild';
import {chmod, readdir, readFile, rm, stat, writeFile} from 'node:fs/promises';
import {basename, join} from 'node:path';
import {ROOT, writeGenerated} from './generated.mjs';

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
  plugins: [inkFrameLog(), zodEnglishOnly(), lazyForMarkedTerminal(), yogaWithoutFetch()],
  banner: {
    js: [
      '#!/usr/bin/env node',
      "import {createRequire as __nibCreateRequire} from 'node:module';",
      'const require = __nibCreateRequire(import.meta.url);',
    ].join('\n'),
  },
});
await chmod('dist/cli.js', 0o755);

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

/**
 * Ink's frame writer with nib's wrapper around it (source/hooks/frame-log.ts says why): Ink's
 * `./log-update.js`, imported by Ink itself, becomes a module that wraps the original.
 */
function inkFrameLog() {
  return swapImports('ink-frame-log', {
    importer: /[\\/]ink[\\/]build[\\/]ink\.js$/,
    resolveDir: ROOT,
    modules: {
      './log-update.js': [
        "import original from './node_modules/ink/build/log-update.js';",
        "import {wrapLogUpdate} from './source/hooks/frame-log.ts';",
        'export default {create: (stream, options) => wrapLogUpdate(original.create, stream, options)};',
      ].join('\n'),
    },
  });
}

/**
 * zod with its English messages only. zod exports every locale it has under `z.locales` (267 KB of
 * the 470 KB it added to the bundle), so esbuild cannot drop them; nib speaks English and never
 * reads `z.locales`. Measured with bench/startup.mjs: a config file cost `nib -p` ~25 ms, mostly this.
 */
function zodEnglishOnly() {
  return swapImports('zod-english-only', {
    importer: /[\\/]node_modules[\\/]zod[\\/]/,
    modules: {'../locales/index.js': "export {default as en} from '../locales/en.js';"},
  });
}

/**
 * marked-terminal imports cli-highlight (highlight.js with every grammar) and node-emoji (emojilib's
 * tables) at its top, so loading the markdown renderer evaluated both: 80 ms of CPU when a
 * session's first prompt is sent, 28 ms without them (bench/markdown-load.mjs). Each becomes a
 * module that loads the real one on its first call: highlight.js when the first code block is
 * drawn (~50 ms, once), emojilib never (nib turns marked-terminal's emoji option off).
 */
function lazyForMarkedTerminal() {
  return swapImports('lazy-for-marked-terminal', {
    importer: /[\\/]marked-terminal[\\/]/,
    modules: {
      // A fence language highlight.js lacks (vue, mermaid, …) would have it console.error on every
      // redraw of the open block, above the app; thrown here, marked-terminal draws the code plain.
      'cli-highlight': [
        'let real;',
        'export function highlight(code, options) {',
        "  real ??= require('cli-highlight');",
        "  if (options?.language && !real.supportsLanguage(options.language)) throw new Error('no grammar for ' + options.language);",
        '  return real.highlight(code, options);',
        '}',
      ].join('\n'),
      'node-emoji': "let real; export function get(name) { real ??= require('node-emoji'); return real.get(name); }",
    },
  });
}

/**
 * yoga-layout (Ink's layout engine) carries its WebAssembly as a base64 data: URL and decodes it
 * with fetch() whenever fetch exists. Node's fetch is undici, loaded on first use: ~20 ms of CPU
 * before the TUI's first frame, for a module the session loads after that frame anyway. Decoded
 * with Buffer instead, after one turn of the event loop (as the fetch gave one), so a key typed
 * meanwhile is drawn by the early prompt line at once. bench/tui.mjs 1, 15 runs against the
 * build before: the app's first frame 187 → 166 ms, input ready 88 → 66 ms.
 */
function yogaWithoutFetch() {
  const from = 'function ya(){return w||"function"!=typeof fetch?';
  const to =
    'function ya(){if(!w&&ua(H))return new Promise(resolve=>setImmediate(()=>resolve(Buffer.from(H.slice(37),"base64"))));' +
    'return w||"function"!=typeof fetch?';
  return {
    name: 'yoga-without-fetch',
    setup(builder) {
      const changed = 'yoga-without-fetch: yoga-layout no longer loads its WebAssembly as it expects; update it in scripts/build.mjs';
      let patched = false;
      builder.onLoad({filter: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/}, async args => {
        const text = await readFile(args.path, 'utf8');
        if (text.split(from).length !== 2) throw new Error(changed);
        patched = true;
        return {loader: 'js', contents: text.replace(from, to)};
      });
      builder.onEnd(result => (patched || result.errors.length > 0 ? undefined : {errors: [{text: changed}]}));
    },
  };
}

/**
 * A plugin that gives the package files matching `importer` modules of nib's in place of the
 * imports named in `modules` (specifier → module text). A module's own imports resolve from
 * `resolveDir`, else from the importer's folder. The build fails when one of the specifiers was
 * never imported: the package changed under the plugin, which would otherwise stop working unseen.
 */
function swapImports(name, {importer, modules, resolveDir}) {
  const specifiers = Object.keys(modules);
  const filter = new RegExp(`^(${specifiers.map(specifier => specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
  return {
    name,
    setup(builder) {
      const swapped = new Set();
      builder.onResolve({filter}, args =>
        args.kind === 'import-statement' && importer.test(args.importer) ? {path: args.path, namespace: name, pluginData: resolveDir ?? args.resolveDir} : undefined,
      );
      builder.onLoad({filter: /.*/, namespace: name}, args => {
        swapped.add(args.path);
        return {resolveDir: args.pluginData, loader: 'js', contents: modules[args.path]};
      });
      builder.onEnd(result => {
        const missing = specifiers.filter(specifier => !swapped.has(specifier));
        if (missing.length === 0 || result.errors.length > 0) return undefined;
        return {errors: [{text: `${name}: ${missing.join(' and ')} no longer imported as it expects; update it in scripts/build.mjs`}]};
      });
    },
  };
}

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
