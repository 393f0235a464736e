import {execFileSync} from 'node:child_process';
import {chmod, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile, symlink, readlink, access, utimes} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {workspaceKey} from '../../../source/agent/session/log.js';
import {Snapshots, WORKSPACE, pruneSnapshots} from '../../../source/agent/session/snapshots.js';

let base: string;
let root: string;
let data: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'nib-snap-')));
  root = join(base, 'work');
  data = join(base, 'data');
  await mkdir(root);
});
afterEach(async () => {
  await rm(base, {recursive: true, force: true, maxRetries: 5});
});

async function open(session = 's1'): Promise<Snapshots> {
  const store = await Snapshots.open({root, data, session});
  if (!store.ok) throw new Error(store.error.message);
  return store.value;
}

function unwrap<T>(result: {ok: true; value: T} | {ok: false; error: {message: string}}): T {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

const exists = (path: string) => access(path).then(() => true, () => false);
const bash = (command: string) => execFileSync('bash', ['-c', command], {cwd: root});
const git = (...args: string[]) => execFileSync('git', args, {cwd: root, encoding: 'utf8', env: {...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t'}});

describe('snapshots', () => {
  test('a new session opens without asking for its ref; reopened, the session goes on from its last snapshot', async () => {
    await writeFile(join(root, 'a.txt'), 'one\n');
    const fresh = unwrap(await Snapshots.open({root, data, session: 's1', fresh: true}));
    const first = unwrap(await fresh.take('before turn 1'));
    expect(unwrap(await fresh.take('after turn 1'))).toBe(first);
    // Resumed (not fresh): the unchanged workspace is the snapshot already recorded.
    const resumed = await open('s1');
    expect(unwrap(await resumed.take('before turn 2'))).toBe(first);
    await writeFile(join(root, 'a.txt'), 'two\n');
    const second = unwrap(await resumed.take('after turn 2'));
    expect(git('--git-dir', join(data, 'snapshots', `${workspaceKey(root)}.git`), 'rev-parse', `${second}^`).trim()).toBe(first);
  });

  test('undo after a turn that edited one file, created one and rm-ed a third through bash', async () => {
    const edited = Buffer.from('line 1\r\nline 2\n\u00e9 accent\n');
    const removed = Buffer.from('#!/bin/sh\necho keep me\n');
    await writeFile(join(root, 'edited.txt'), edited);
    await chmod(join(root, 'edited.txt'), 0o640);
    await mkdir(join(root, 'bin'));
    await writeFile(join(root, 'bin', 'tool.sh'), removed);
    await chmod(join(root, 'bin', 'tool.sh'), 0o755);
    const store = await open();
    const before = unwrap(await store.take('before turn 1'));

    // The turn: an edit (through a tool), a new file in a new folder, and `rm` through bash.
    await writeFile(join(root, 'edited.txt'), 'rewritten\n');
    await mkdir(join(root, 'new', 'deep'), {recursive: true});
    await writeFile(join(root, 'new', 'deep', 'created.txt'), 'fresh\n');
    bash('rm bin/tool.sh');
    const after = unwrap(await store.take('after turn 1'));
    expect(after).not.toBe(before);

    const plan = unwrap(await store.planUndo(before, after));
    expect(plan.conflicts).toEqual([]);
    expect(plan.changes.map(c => [c.path, c.status])).toEqual([
      ['bin/tool.sh', 'added'],
      ['edited.txt', 'modified'],
      ['new/deep/created.txt', 'deleted'],
    ]);
    expect(plan.changes[1]!.patch).toContain('-rewritten');

    const report = unwrap(await store.restore(before));
    expect(report.deleted).toEqual(['new/deep/created.txt']);
    expect(await readFile(join(root, 'edited.txt'))).toEqual(edited);
    expect((await stat(join(root, 'edited.txt'))).mode & 0o777).toBe(0o640);
    expect(await readFile(join(root, 'bin', 'tool.sh'))).toEqual(removed);
    expect((await stat(join(root, 'bin', 'tool.sh'))).mode & 0o111).toBe(0o111);
    expect(await exists(join(root, 'new'))).toBe(false);
    expect(unwrap(await store.diff(before, WORKSPACE))).toEqual([]);
  });

  test('files deleted by a turn come back with their exact mode (0600, 0750), also from a reopened store', async () => {
    await writeFile(join(root, 'secret.env'), 'TOKEN=1\n');
    await chmod(join(root, 'secret.env'), 0o600);
    await writeFile(join(root, 'run.sh'), '#!/bin/sh\n');
    await chmod(join(root, 'run.sh'), 0o750);
    await writeFile(join(root, 'later.txt'), 'a\n');
    const first = await open();
    unwrap(await first.take('start'));
    // A file whose mode changes along with its content is recorded by the next snapshot.
    await writeFile(join(root, 'later.txt'), 'b\n');
    await chmod(join(root, 'later.txt'), 0o640);
    const before = unwrap(await first.take('before turn 2'));
    const store = await open();
    bash('rm secret.env run.sh later.txt');
    unwrap(await store.take('after turn 2'));
    unwrap(await store.restore(before));
    expect((await stat(join(root, 'secret.env'))).mode & 0o7777).toBe(0o600);
    expect((await stat(join(root, 'run.sh'))).mode & 0o7777).toBe(0o750);
    expect((await stat(join(root, 'later.txt'))).mode & 0o7777).toBe(0o640);
    expect(await readFile(join(root, 'later.txt'), 'utf8')).toBe('b\n');
  });

  test('modes scanned while warming up (refresh) stay right for files changed before the first snapshot', async () => {
    await writeFile(join(root, 'a.key'), 'a\n');
    await chmod(join(root, 'a.key'), 0o600);
    const store = await open();
    unwrap(await store.refresh());
    await writeFile(join(root, 'b.key'), 'b\n');
    await chmod(join(root, 'b.key'), 0o640);
    const before = unwrap(await store.take('before'));
    bash('rm a.key b.key');
    unwrap(await store.take('after'));
    unwrap(await store.restore(before));
    expect((await stat(join(root, 'a.key'))).mode & 0o7777).toBe(0o600);
    expect((await stat(join(root, 'b.key'))).mode & 0o7777).toBe(0o640);
  });

  test('an unchanged tree gives the same id; a change gives a new one', async () => {
    await writeFile(join(root, 'a.txt'), 'a');
    const store = await open();
    const one = unwrap(await store.take('1'));
    expect(unwrap(await store.take('2'))).toBe(one);
    await writeFile(join(root, 'a.txt'), 'b');
    expect(unwrap(await store.take('3'))).not.toBe(one);
  });

  test('ignored files are neither recorded nor touched by restore', async () => {
    await writeFile(join(root, '.gitignore'), 'build/\n*.log\n');
    await mkdir(join(root, 'build'));
    await writeFile(join(root, 'build', 'out.js'), 'old');
    const store = await open();
    const before = unwrap(await store.take('before'));
    await writeFile(join(root, 'build', 'out.js'), 'new');
    await writeFile(join(root, 'debug.log'), 'log');
    await writeFile(join(root, 'kept.txt'), 'x');
    expect(unwrap(await store.diff(before)).map(c => c.path)).toEqual(['kept.txt']);
    unwrap(await store.restore(before));
    expect(await readFile(join(root, 'build', 'out.js'), 'utf8')).toBe('new');
    expect(await exists(join(root, 'debug.log'))).toBe(true);
    expect(await exists(join(root, 'kept.txt'))).toBe(false);
  });

  test('in a git repository the person\'s .git (index, refs, HEAD) is never touched', async () => {
    git('init', '-q');
    await writeFile(join(root, 'tracked.txt'), 'v1\n');
    git('add', 'tracked.txt');
    git('commit', '-qm', 'init');
    await writeFile(join(root, 'staged.txt'), 'staged\n');
    git('add', 'staged.txt');
    const index = await readFile(join(root, '.git', 'index'));
    const head = git('rev-parse', 'HEAD');
    const refs = git('for-each-ref');

    const store = await open();
    const before = unwrap(await store.take('before'));
    await writeFile(join(root, 'tracked.txt'), 'v2\n');
    await writeFile(join(root, 'untracked.txt'), 'u\n');
    unwrap(await store.take('after'));
    unwrap(await store.restore(before));

    expect(await readFile(join(root, 'tracked.txt'), 'utf8')).toBe('v1\n');
    expect(await exists(join(root, 'untracked.txt'))).toBe(false);
    expect(await readFile(join(root, '.git', 'index'))).toEqual(index);
    expect(git('rev-parse', 'HEAD')).toBe(head);
    expect(git('for-each-ref')).toBe(refs);
    expect(git('status', '--porcelain')).toBe('A  staged.txt\n');
  });

  test('the repository info/exclude of the workspace is respected', async () => {
    git('init', '-q');
    await writeFile(join(root, '.git', 'info', 'exclude'), 'secret-notes.txt\n');
    await writeFile(join(root, 'secret-notes.txt'), 'private');
    const store = await open();
    const before = unwrap(await store.take('before'));
    await writeFile(join(root, 'secret-notes.txt'), 'changed');
    expect(unwrap(await store.diff(before))).toEqual([]);
  });

  test('files the person changed after the turn are reported as conflicts', async () => {
    await writeFile(join(root, 'a.txt'), 'a1');
    await writeFile(join(root, 'b.txt'), 'b1');
    const store = await open();
    const before = unwrap(await store.take('before'));
    await writeFile(join(root, 'a.txt'), 'a2 by agent');
    const after = unwrap(await store.take('after'));
    await writeFile(join(root, 'a.txt'), 'a3 by person');
    await writeFile(join(root, 'c.txt'), 'person only');
    expect(unwrap(await store.changedSince(after)).sort()).toEqual(['a.txt', 'c.txt']);
    const plan = unwrap(await store.planUndo(before, after));
    expect(plan.conflicts.sort()).toEqual(['a.txt', 'c.txt']);
  });

  test('undo N restores an earlier turn; symlinks and a dir replacing a file come back', async () => {
    await writeFile(join(root, 'f'), 'file');
    await symlink('f', join(root, 'link'));
    const store = await open();
    const turn1 = unwrap(await store.take('before 1'));
    await writeFile(join(root, 'f'), 'changed');
    unwrap(await store.take('before 2'));
    await rm(join(root, 'f'));
    await rm(join(root, 'link'));
    await mkdir(join(root, 'f'));
    await writeFile(join(root, 'f', 'inner'), 'x');
    unwrap(await store.restore(turn1));
    expect(await readFile(join(root, 'f'), 'utf8')).toBe('file');
    expect(await readlink(join(root, 'link'))).toBe('f');
  });

  test('a second open of the same session continues its chain; an unknown id is an error', async () => {
    await writeFile(join(root, 'a'), '1');
    const first = await open('sess');
    const id = unwrap(await first.take('x'));
    const second = await open('sess');
    expect(unwrap(await second.take('y'))).toBe(id);
    const bad = await second.restore('0123456789abcdef0123456789abcdef01234567');
    expect(!bad.ok && bad.error.code).toBe('unknown-snapshot');
  });
});

describe('pruning', () => {
  test('refs of deleted sessions go; a workspace with no session left loses its repository once unused', async () => {
    await writeFile(join(root, 'a'), '1');
    const keep = await open('keep');
    unwrap(await keep.take('x'));
    await writeFile(join(root, 'a'), '2');
    const gone = await open('gone');
    unwrap(await gone.take('y'));
    const sessions = join(data, 'sessions', workspaceKey(root));
    await mkdir(sessions, {recursive: true});
    await writeFile(join(sessions, 'keep.jsonl'), '{}\n');

    await pruneSnapshots(data, {retentionDays: 30, gc: false}); // a background gc would race the temp dir's removal
    const refs = execFileSync('git', ['for-each-ref', '--format=%(refname)'], {env: {...process.env, GIT_DIR: keep.gitDir}, encoding: 'utf8'});
    expect(refs.trim().split('\n')).toEqual(['refs/nib/keep']);

    await rm(sessions, {recursive: true});
    await pruneSnapshots(data, {retentionDays: 30, gc: false});
    expect(await exists(keep.gitDir)).toBe(true); // used recently: another nib may be starting in it
    await pruneSnapshots(data, {retentionDays: 30, now: Date.now() + 31 * 86_400_000, gc: false});
    expect(await exists(keep.gitDir)).toBe(false);
  });

  test('a repository a killed nib was still building goes a day later, not before', async () => {
    const building = join(data, 'snapshots', 'ws-0123456789.git.4242-k3j9x');
    await mkdir(join(building, 'objects'), {recursive: true});
    await pruneSnapshots(data, {retentionDays: 30, gc: false});
    expect(await exists(building)).toBe(true);
    await pruneSnapshots(data, {retentionDays: 30, now: Date.now() + 25 * 3_600_000, gc: false});
    expect(await exists(building)).toBe(false);
  });
});

test('a stale index.lock left by a killed git does not block snapshots forever', async () => {
  await writeFile(join(root, 'a'), '1');
  const store = await open();
  unwrap(await store.take('first'));
  const lock = join(store.gitDir, 'index.lock');
  await writeFile(lock, '');
  const old = new Date(Date.now() - 60_000);
  await utimes(lock, old, old);
  await writeFile(join(root, 'a'), '2');
  unwrap(await store.take('second'));
  expect(await exists(lock)).toBe(false);
});
