// `npm pack` / `npm publish` take package.json as it is on disk. `prepare` builds dist/ for a
// clone's `npm install`, but in the package it would be an install script of nib's own: npm 12
// blocks it (and warns) when a tarball is installed, and anyone who allowed it would run a build
// script the package does not contain. So prepack writes the manifest without it and postpack
// puts the original back (the same idea as pinst, for postinstall).
//
//   node scripts/pack-manifest.mjs strip     # prepack
//   node scripts/pack-manifest.mjs restore   # postpack
import {existsSync} from 'node:fs';
import {readFile, rename, writeFile} from 'node:fs/promises';

const manifest = 'package.json';
// Outside the package's files and ignored by git, so a failed pack leaves nothing to commit.
const saved = 'node_modules/.nib-package.json';

const command = process.argv[2];
if (command === 'strip') {
  if (existsSync(saved)) throw new Error(`${saved} exists: a pack did not finish; run "node scripts/pack-manifest.mjs restore" first`);
  const text = await readFile(manifest, 'utf8');
  const pkg = JSON.parse(text);
  delete pkg.scripts.prepare;
  await writeFile(saved, text);
  await writeFile(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (command === 'restore') {
  if (existsSync(saved)) await rename(saved, manifest);
} else {
  throw new Error('usage: node scripts/pack-manifest.mjs strip|restore');
}
