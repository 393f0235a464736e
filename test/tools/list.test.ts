import {mkdir, symlink, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {describe, expect, test} from 'vitest';
import {createListTool, listTool} from '../../source/tools/index.js';
import {contextFor, never, useTempDirs} from './helpers.js';

const tempDir = useTempDirs();

async function project(): Promise<string> {
  const root = await tempDir();
  const files = [
    'package.json',
    '.gitignore',
    '.github/workflows/ci.yml',
    'src/app.ts',
    'src/components/Box.tsx',
    'src/components/deep/er/x.ts',
    'dist/cli.js',
    'node_modules/pkg/index.js',
    '.git/HEAD',
    'test/app.test.ts',
  ];
  for (const name of files) {
    await mkdir(path.dirname(path.join(root, name)), {recursive: true});
    await writeFile(path.join(root, name), name === '.gitignore' ? 'dist/\n' : 'x');
  }
  return root;
}

describe('list', () => {
  test('a tree, .gitignore-aware, node_modules and .git skipped, hidden files shown', async () => {
    const root = await project();
    const result = await listTool.run({}, contextFor(root), never);
    expect(result.content).toBe(
      [
        './',
        '  .github/',
        '    workflows/',
        '      ci.yml',
        '  .gitignore',
        '  package.json',
        '  src/',
        '    app.ts',
        '    components/',
        '      Box.tsx',
        '      deep/',
        '  test/',
        '    app.test.ts',
        '[Directories at the depth limit (3) are not expanded; pass a larger depth or a path to see inside.]',
      ].join('\n'),
    );
    expect(result.detail).toMatchObject({summary: '12 entries'});
  });

  test('node_modules is listed when the path or glob asks for it', async () => {
    const root = await project();
    const inside = await listTool.run({path: 'node_modules'}, contextFor(root), never);
    expect(inside.content).toBe('node_modules/\n  pkg/\n    index.js');
    const glob = await listTool.run({glob: 'node_modules/**/*.js'}, contextFor(root), never);
    expect(glob.content).toBe('node_modules/pkg/index.js');
  });

  test('glob mode lists matching files relative to the workspace root', async () => {
    const root = await project();
    expect((await listTool.run({glob: '*.ts'}, contextFor(root), never)).content).toBe(
      'src/app.ts\nsrc/components/deep/er/x.ts\ntest/app.test.ts',
    );
    expect((await listTool.run({path: 'src', glob: '**/*.tsx'}, contextFor(root), never)).content).toBe('src/components/Box.tsx');
    expect((await listTool.run({glob: '*.rs'}, contextFor(root), never)).content).toBe('No files match "*.rs" in the workspace.');
  });

  test('symlinks are shown with their target, in tree and glob mode, and never entered', async () => {
    // They used to be left out altogether: `link*` found nothing beside link, linkdir and inlink.
    const root = await tempDir();
    const elsewhere = await tempDir();
    await writeFile(path.join(root, 'a.txt'), 'x');
    await mkdir(path.join(root, 'd'));
    await writeFile(path.join(elsewhere, 'secret.txt'), 'x');
    await symlink('a.txt', path.join(root, 'inlink'));
    await symlink('d', path.join(root, 'indir'));
    await symlink(path.join(elsewhere, 'secret.txt'), path.join(root, 'link'));
    await symlink(elsewhere, path.join(root, 'linkdir'));
    await symlink('missing.txt', path.join(root, 'dangling'));
    const tree = await listTool.run({}, contextFor(root), never);
    expect(tree.content).toBe(
      [
        './',
        '  a.txt',
        '  d/',
        '  dangling -> missing.txt (broken)',
        '  indir -> d/',
        '  inlink -> a.txt',
        `  link -> ${path.join(elsewhere, 'secret.txt')} (outside the workspace)`,
        `  linkdir -> ${elsewhere}/ (outside the workspace)`,
      ].join('\n'),
    );
    const glob = await listTool.run({glob: 'link*'}, contextFor(root), never);
    expect(glob.content).toBe(
      [`link -> ${path.join(elsewhere, 'secret.txt')} (outside the workspace)`, `linkdir -> ${elsewhere}/ (outside the workspace)`].join('\n'),
    );
    expect((await listTool.run({glob: '**/secret.txt'}, contextFor(root), never)).content).toBe('No files match "**/secret.txt" in the workspace.');
  });

  test('capped with a count; shallow entries are kept first', async () => {
    const root = await tempDir();
    for (const dir of ['a', 'b']) {
      await mkdir(path.join(root, dir));
      for (let i = 0; i < 5; i += 1) await writeFile(path.join(root, dir, `f${i}`), '');
    }
    const result = await createListTool({maxEntries: 4}).run({}, contextFor(root), never);
    expect(result.content).toBe(
      ['./', '  a/  (+3 not shown)', '    f0', '    f1', '  b/  (+5 not shown)', '[8 of 12 entries not shown; list a subdirectory or use a glob.]'].join('\n'),
    );
  });

  test('errors: missing path, a file; outside is flagged', async () => {
    const root = await project();
    expect(await listTool.run({path: 'nope'}, contextFor(root), never)).toMatchObject({code: 'not-found'});
    expect(await listTool.run({path: 'package.json'}, contextFor(root), never)).toMatchObject({code: 'not-a-directory'});
    expect(await listTool.isOutside({path: '..'}, contextFor(root))).toBe(true);
  });
});
