import {mkdir, readdir, utimes, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {prepareShadowRepo, runGit, SHADOW_SETTINGS} from '../../../source/agent/session/snapshot-git.js';
import {createSandbox, type Sandbox} from '../../support/sandbox.js';

describe('prepareShadowRepo', () => {
  let sandbox: Sandbox;
  beforeEach(async () => {
    sandbox = await createSandbox();
  });
  afterEach(() => sandbox.cleanup());

  it('creates the shadow repository with every setting, as git reads them', async () => {
    const dir = sandbox.workspace;
    const gitDir = join(sandbox.root, 'shadow.git');
    const calls: string[][] = [];
    const git = (args: string[], bare: boolean) => {
      calls.push(args);
      return runGit(args, {cwd: dir, env: bare ? {} : {GIT_DIR: gitDir, GIT_WORK_TREE: dir}});
    };
    expect((await prepareShadowRepo(gitDir, dir, git)).ok).toBe(true);
    // One process for the repository, none per setting.
    expect(calls).toHaveLength(1);
    expect(calls[0]!.slice(0, 3)).toEqual(['init', '--quiet', '--bare']);
    for (const [key, value] of SHADOW_SETTINGS) {
      const read = await runGit(['config', '--get', key], {cwd: dir, env: {GIT_DIR: gitDir}});
      expect(read.ok && read.value.trim(), key).toBe(value);
    }
    // A second open finds it made and asks git nothing.
    expect((await prepareShadowRepo(gitDir, dir, git)).ok).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it('two starts at once make one repository with each setting once, and both can use it', async () => {
    const dir = sandbox.workspace;
    const gitDir = join(sandbox.root, 'shadow.git');
    const git = (args: string[], bare: boolean) => runGit(args, {cwd: dir, env: bare ? {} : {GIT_DIR: gitDir, GIT_WORK_TREE: dir}});
    const results = await Promise.all(Array.from({length: 4}, () => prepareShadowRepo(gitDir, dir, git)));
    expect(results.every(result => result.ok)).toBe(true);
    // The config is one start's, not several appended (git refuses to set a key it finds twice).
    const alone = join(sandbox.root, 'alone.git');
    await prepareShadowRepo(alone, dir, (args, bare) => runGit(args, {cwd: dir, env: bare ? {} : {GIT_DIR: alone}}));
    const config = (at: string) => runGit(['config', '--list', '--local'], {cwd: dir, env: {GIT_DIR: at}});
    expect(await config(gitDir)).toEqual(await config(alone));
    expect((await readdir(sandbox.root)).filter(name => name.startsWith('shadow.git'))).toEqual(['shadow.git']);
  });

  it('a data dir that cannot be written is an answer that says so, not a throw', async () => {
    await writeFile(join(sandbox.root, 'blocker'), 'a file where a folder should be');
    const gitDir = join(sandbox.root, 'blocker', 'snapshots', 'shadow.git');
    const result = await prepareShadowRepo(gitDir, sandbox.workspace, (args, bare) => runGit(args, {cwd: sandbox.workspace, env: bare ? {} : {GIT_DIR: gitDir}}));
    expect(result).toMatchObject({ok: false, error: {message: expect.stringMatching(/^Undo is off for this session: its snapshots cannot be kept, as .*ENOTDIR/)}});
  });

  it("an older nib's failed start (a folder with no HEAD, untouched for a while) is moved aside; one being made now is left alone", async () => {
    const dir = sandbox.workspace;
    const gitDir = join(sandbox.root, 'shadow.git');
    const git = (args: string[], bare: boolean) => runGit(args, {cwd: dir, env: bare ? {} : {GIT_DIR: gitDir}});
    await mkdir(join(gitDir, 'objects'), {recursive: true});
    expect(await prepareShadowRepo(gitDir, dir, git)).toMatchObject({ok: false, error: {message: expect.stringMatching(/is not a repository nib made/)}});
    expect(await readdir(gitDir)).toEqual(['objects']);
    const old = new Date(Date.now() - 120_000);
    await utimes(gitDir, old, old);
    expect((await prepareShadowRepo(gitDir, dir, git)).ok).toBe(true);
    expect((await runGit(['rev-parse', '--git-dir'], {cwd: dir, env: {GIT_DIR: gitDir}})).ok).toBe(true);
    expect((await readdir(sandbox.root)).filter(name => name.startsWith('shadow.git.'))).toHaveLength(1);
  });
});
