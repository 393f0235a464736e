import module from 'node:module';

/**
 * The bundle's chunks import each other by relative path, and Node checks every such import on
 * disk before it loads it (a stat, a realpath, the package.json that says the file is ESM): with
 * ~30 chunks on print mode's way to its first request that was ~9 ms (bench/startup.mjs). A chunk
 * importing a chunk needs none of it: the file is in the same folder and is an ES module. Only for
 * `./` imports from inside `dist`; everything else is resolved by Node as usual. Node before
 * 22.15 has no registerHooks and keeps its own way.
 */
export function resolveChunksDirectly(entryUrl: string): void {
  const dist = new URL('./', entryUrl).href;
  module.registerHooks?.({
    resolve(specifier, context, next) {
      if (!specifier.startsWith('./') || !context.parentURL?.startsWith(dist)) return next(specifier, context);
      return {url: new URL(specifier, context.parentURL).href, format: 'module', shortCircuit: true};
    },
  });
}
