// `npm run bench`: builds once, then runs every bench/*.mjs that is a benchmark (not a helper),
// one after the other so they do not compete for the two cores.
import {spawnSync} from 'node:child_process';
import {readdirSync} from 'node:fs';
import {fileURLToPath} from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const helpers = new Set(['run.mjs', 'support.mjs', 'pty.mjs', 'raw-sdk.mjs', 'ink-floor.mjs']);
const only = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter(name => name.endsWith('.mjs') && !helpers.has(name))
  .filter(name => only.length === 0 || only.some(word => name.includes(word)))
  .sort();

const build = spawnSync(process.execPath, ['scripts/build.mjs'], {cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: 'inherit'});
if (build.status !== 0) process.exit(build.status ?? 1);

let failed = 0;
for (const name of benches) {
  console.log(`\n== bench/${name}`);
  const result = spawnSync(process.execPath, [`${dir}${name}`], {stdio: 'inherit', cwd: fileURLToPath(new URL('..', import.meta.url))});
  if (result.status !== 0) {
    failed++;
    console.log(`bench/${name} failed (exit ${result.status})`);
  }
}
process.exit(failed > 0 ? 1 : 0);
