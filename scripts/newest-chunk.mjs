import {readdirSync, statSync} from 'node:fs';
import {join} from 'node:path';

/**
 * The current build's chunk whose name starts with `prefix`, in a dist/chunks folder: the newest
 * one, since a build leaves the previous build's chunks for a while (scripts/build.mjs says why).
 * For tests and benches that load one chunk of the bundle on its own.
 */
export function newestChunk(chunks, prefix) {
  const name = readdirSync(chunks)
    .filter(file => file.startsWith(prefix))
    .sort((a, b) => statSync(join(chunks, b)).mtimeMs - statSync(join(chunks, a)).mtimeMs)[0];
  if (!name) throw new Error(`no ${prefix}*.js chunk in ${chunks}: run npm run build`);
  return name;
}
