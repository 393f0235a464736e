// The build's esbuild plugins: each changes one thing in a package nib bundles, says why, and
// fails the build when the package no longer looks the way it expects.
import {readFileSync} from 'node:fs';
import {readFile} from 'node:fs/promises';
import {dirname, join} from 'node:path';
import {ROOT} from './generated.mjs';

/**
 * Ink's frame writer with nib's wrapper around it (source/hooks/frame-log.ts says why): Ink's
 * `./log-update.js`, imported by Ink itself, becomes a module that wraps the original.
 */
export function inkFrameLog() {
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
export function zodEnglishOnly() {
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
export function lazyForMarkedTerminal() {
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
 * A plugin that makes `replacements` ([from, to] pairs, each `from` found exactly once) in the
 * package files that match `file` (and whose text `applies` to, if given). The build fails when no
 * such file is bundled or a `from` is not in one.
 */
export function patchSource(name, {file, replacements, applies = () => true}) {
  return {
    name,
    setup(builder) {
      const changed = `${name}: the package no longer reads as it expects; update that plugin in scripts/`;
      let patched = false;
      builder.onLoad({filter: file}, async args => {
        const text = await readFile(args.path, 'utf8');
        if (!applies(text)) return undefined;
        let contents = text;
        for (const [from, to] of replacements) {
          if (contents.split(from).length !== 2) throw new Error(changed);
          contents = contents.replace(from, () => to);
        }
        patched = true;
        return {loader: 'js', contents};
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
export function swapImports(name, {importer, modules, resolveDir}) {
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
        return {errors: [{text: `${name}: ${missing.join(' and ')} no longer imported as it expects; update that plugin in scripts/`}]};
      });
    },
  };
}

/**
 * Copies of one version of each package named resolve to the first one met, as a deduplicated
 * install would have them: npm keeps a copy under each dependent when the hoisted one is of
 * another version, and the bundle then holds (and loads) the same code twice.
 */
export function sameCopiesOnce(names) {
  // The version in the copy's own package.json (its entry may sit in a folder of the package).
  const versionOf = (name, path) => {
    for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
        if (pkg.name === name) return pkg.version;
      } catch {
        // No package.json here: look further up.
      }
    }
    return undefined;
  };
  return {
    name: 'same-copies-once',
    setup(builder) {
      const first = new Map();
      builder.onResolve({filter: new RegExp(`^(${names.join('|')})$`)}, async args => {
        if (args.pluginData === 'same-copies-once') return undefined;
        const resolved = await builder.resolve(args.path, {kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'same-copies-once'});
        if (resolved.errors.length > 0) return undefined;
        const version = versionOf(args.path, resolved.path);
        if (version === undefined) return undefined;
        const key = `${args.path}@${version}`;
        if (!first.has(key)) first.set(key, resolved.path);
        return {path: first.get(key)};
      });
    },
  };
}
