import {mkdir, mkdtemp, realpath, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {loadInstructions} from '../../../source/agent/session/instructions.js';
import {buildSystemPrompt} from '../../../source/agent/system-prompt.js';

let base: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'nib-instr-')));
  env = {XDG_CONFIG_HOME: join(base, 'config')};
});
afterEach(async () => {
  await rm(base, {recursive: true, force: true});
});

test('personal file first, then git root down to cwd, nearest last; CLAUDE.md only where no AGENTS.md', async () => {
  const repo = join(base, 'repo');
  await mkdir(join(repo, '.git'), {recursive: true});
  await mkdir(join(repo, 'pkg', 'app'), {recursive: true});
  await mkdir(join(base, 'config', 'nib'), {recursive: true});
  await writeFile(join(base, 'AGENTS.md'), 'above the repo: never read');
  await writeFile(join(base, 'config', 'nib', 'AGENTS.md'), 'personal');
  await writeFile(join(repo, 'AGENTS.md'), 'root rules');
  await writeFile(join(repo, 'CLAUDE.md'), 'shadowed by AGENTS.md');
  await writeFile(join(repo, 'pkg', 'CLAUDE.md'), 'pkg claude rules');
  await writeFile(join(repo, 'pkg', 'app', 'AGENTS.md'), 'app rules');

  const found = await loadInstructions({cwd: join(repo, 'pkg', 'app'), env});
  expect(found.files.map(f => f.path)).toEqual([
    join(base, 'config', 'nib', 'AGENTS.md'),
    join(repo, 'AGENTS.md'),
    join(repo, 'pkg', 'CLAUDE.md'),
    join(repo, 'pkg', 'app', 'AGENTS.md'),
  ]);
  expect(found.notice).toBeNull();
  expect(found.text).toBe([
    `--- ${join(base, 'config', 'nib', 'AGENTS.md')} ---\npersonal`,
    `--- ${join(repo, 'AGENTS.md')} ---\nroot rules`,
    `--- ${join(repo, 'pkg', 'CLAUDE.md')} ---\npkg claude rules`,
    `--- ${join(repo, 'pkg', 'app', 'AGENTS.md')} ---\napp rules`,
  ].join('\n\n'));

  const prompt = buildSystemPrompt({cwd: repo, platform: 'linux', date: new Date(0), tools: [], instructions: found.text});
  expect(prompt).toContain(`--- ${join(repo, 'pkg', 'app', 'AGENTS.md')} ---\napp rules`);
});

test('outside a git repository only the working directory is read', async () => {
  const dir = join(base, 'plain', 'sub');
  await mkdir(dir, {recursive: true});
  await writeFile(join(base, 'plain', 'AGENTS.md'), 'parent');
  await writeFile(join(dir, 'AGENTS.md'), 'here');
  const found = await loadInstructions({cwd: dir, env});
  expect(found.files.map(f => f.path)).toEqual([join(dir, 'AGENTS.md')]);
});

test('no files: empty text', async () => {
  const found = await loadInstructions({cwd: base, env});
  expect(found).toEqual({text: '', files: [], notice: null});
});

test('capped at 32 KiB in total with a notice, never splitting a character', async () => {
  const repo = join(base, 'big');
  await mkdir(join(repo, '.git'), {recursive: true});
  await mkdir(join(repo, 'sub'));
  await writeFile(join(repo, 'AGENTS.md'), 'é'.repeat(12 * 1024)); // 24 KiB
  await writeFile(join(repo, 'sub', 'AGENTS.md'), 'ü'.repeat(8 * 1024)); // 16 KiB: crosses the cap
  const found = await loadInstructions({cwd: join(repo, 'sub'), env});
  expect(found.notice).toMatch(/cut at 32 KiB/);
  expect(found.notice).toContain(join(repo, 'sub', 'AGENTS.md'));
  expect(found.text).toContain('(Project instructions were cut');
  expect(found.text).not.toContain('\uFFFD');
  const body = found.text.replace(/--- .* ---\n/g, '').replace(/\(Project.*\)$/s, '');
  expect(Buffer.byteLength(body.replace(/\s/g, ''))).toBeLessThanOrEqual(32 * 1024);
  expect(found.files).toHaveLength(2);
});
