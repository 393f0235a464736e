import {spawn} from 'node:child_process';
import {appendFile, lstat, mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile} from 'node:fs/promises';
import {dirname, join, sep} from 'node:path';
import type {Failure, Result} from '../../core/result.js';

/** The git side of snapshots: running git cleanly, reading its output, pruning old repositories. */

export type SnapshotErrorCode = 'no-git' | 'git-failed' | 'unknown-snapshot';
export type SnapshotError = Failure<SnapshotErrorCode>;
export type SnapshotResult<T> = Result<T, SnapshotError>;

export type ChangeStatus = 'added' | 'deleted' | 'modified' | 'type-changed';

export type WorkspaceChange = {
  path: string;
  status: ChangeStatus;
  /** Git modes (100644, 100755, 120000); null where the file is absent. */
  oldMode: string | null;
  newMode: string | null;
  /** Unified diff of this file (`diff --git` header included); "Binary files differ" for binaries. */
  patch: string;
};

/** The current state of the workspace, as an endpoint of diff(). */
export const WORKSPACE = 'workspace' as const;
export type SnapshotRef = string | typeof WORKSPACE;

export type RestoreReport = {restored: string[]; deleted: string[]};

export type UndoPlan = {
  /** What restoring will do, as a diff from the workspace now to the snapshot. */
  changes: WorkspaceChange[];
  /** Files the person changed after the agent's last turn that the restore would overwrite. */
  conflicts: string[];
};

const ZERO = /^0+$/;
export const GITLINK = '160000';
export const STALE_LOCK_MS = 30_000;

// Attributes in info/ outrank the workspace's .gitattributes: no filter (git-lfs), no eol or
// encoding conversion, so a snapshot holds the bytes on disk and gives back the same bytes.
export const ATTRIBUTES = '* -text -eol -filter -ident -working-tree-encoding\n';

/** Starts the line of a snapshot's commit message that holds its files' exact modes. */
export const MODES_TRAILER = 'nib-modes: ';

/** The shadow repository's settings: bytes exactly as on disk, no hooks or monitors of the person's. */
export const SHADOW_SETTINGS: ReadonlyArray<[string, string]> = [
  ['core.bare', 'false'],
  ['core.autocrlf', 'false'],
  ['core.safecrlf', 'false'],
  ['core.symlinks', 'true'],
  ['core.fileMode', 'true'],
  ['core.untrackedCache', 'true'],
  ['core.quotePath', 'false'],
  ['core.fsmonitor', 'false'],
  // A 20,000-file index is ~2 MB; version 4 compresses its paths and the split index
  // rewrites only changed entries, which halves a snapshot after a one-file change.
  ['index.version', '4'],
  ['core.splitIndex', 'true'],
  ['gc.auto', '0'],
  ['advice.addEmbeddedRepo', 'false'],
  ['user.name', 'nib'],
  ['user.email', 'nib@localhost'],
];

export function parseRaw(output: string): WorkspaceChange[] {
  const parts = output.split('\0');
  const changes: WorkspaceChange[] = [];
  for (let index = 0; index + 1 < parts.length; index += 2) {
    const meta = parts[index]!;
    const path = parts[index + 1]!;
    const [oldMode = '', newMode = '', , , letter = ''] = meta.replace(/^:/, '').split(' ');
    const status: ChangeStatus = letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : letter === 'T' ? 'type-changed' : 'modified';
    changes.push({
      path,
      status,
      oldMode: ZERO.test(oldMode) ? null : oldMode,
      newMode: ZERO.test(newMode) ? null : newMode,
      patch: '',
    });
  }
  return changes;
}

/** Runs git with an environment cleared of the person's GIT_* variables (a hook's GIT_DIR, say). */
export function runGit(args: string[], options: {cwd: string; env: Record<string, string>; input?: string}): Promise<SnapshotResult<string>> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('GIT_')) env[name] = value;
  Object.assign(env, options.env, {GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C'});
  return new Promise(resolve => {
    const child = spawn('git', args, {cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe']});
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', chunk => out.push(chunk));
    child.stderr.on('data', chunk => err.push(chunk));
    child.on('error', error => {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      resolve({
        ok: false,
        error: missing
          ? {code: 'no-git', message: 'Undo needs git on the PATH; snapshots are off for this session.'}
          : {code: 'git-failed', message: `git ${args[0]}: ${error.message}`},
      });
    });
    child.on('close', code => {
      if (code === 0) resolve({ok: true, value: Buffer.concat(out).toString('utf8')});
      else resolve({ok: false, error: {code: 'git-failed', message: `git ${args[0]} failed: ${Buffer.concat(err).toString('utf8').trim()}`}});
    });
    child.stdin.on('error', () => {}); // git may exit before reading its input; the exit code says why
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Housekeeping for sessions that are gone (retention, /sessions delete): a workspace with no
 * session left and a shadow repository unused for `retentionDays` is deleted whole; otherwise
 * refs of deleted sessions are dropped and a background `git gc` (default two-week prune, so a
 * running nib never loses objects) reclaims the space. Never awaited on the start path.
 */
export async function pruneSnapshots(data: string, options: {retentionDays: number; now?: number; gc?: boolean}): Promise<void> {
  if (!(options.retentionDays > 0)) return;
  const cutoff = (options.now ?? Date.now()) - options.retentionDays * 24 * 60 * 60 * 1000;
  const root = join(data, 'snapshots');
  const names = await readdir(root).catch(() => [] as string[]);
  // A repository a killed nib was still building beside its place (prepareShadowRepo), a day on.
  for (const name of names.filter(entry => BESIDE.test(entry))) {
    const built = await stat(join(root, name)).catch(() => null);
    if (built && built.mtimeMs < (options.now ?? Date.now()) - 24 * 60 * 60 * 1000) await rm(join(root, name), {recursive: true, force: true});
  }
  const repos = names.filter(name => name.endsWith('.git'));
  for (const repo of repos) {
    const gitDir = join(root, repo);
    const sessions = await readdir(join(data, 'sessions', repo.slice(0, -'.git'.length))).catch(() => [] as string[]);
    const ids = new Set(sessions.filter(name => name.endsWith('.jsonl')).map(name => name.slice(0, -'.jsonl'.length)));
    if (ids.size === 0) {
      const used = await stat(join(gitDir, 'index')).catch(() => null);
      if (!used || used.mtimeMs < cutoff) await rm(gitDir, {recursive: true, force: true});
      continue;
    }
    const refs = await runGit(['for-each-ref', '--format=%(refname)', 'refs/nib/'], {cwd: root, env: {GIT_DIR: gitDir}});
    if (!refs.ok) continue;
    const stale = refs.value.split('\n').filter(ref => ref && !ids.has(ref.slice('refs/nib/'.length)));
    if (stale.length === 0) continue;
    await runGit(['update-ref', '--stdin'], {cwd: root, env: {GIT_DIR: gitDir}, input: stale.map(ref => `delete ${ref}\n`).join('')});
    if (options.gc === false) continue;
    spawn('git', ['gc', '--quiet'], {cwd: root, env: {...process.env, GIT_DIR: gitDir}, stdio: 'ignore', detached: true}).unref();
  }
}

/**
 * Creates the shadow repository on first use (settings that keep bytes exact and run none of the
 * person's hooks or monitors), and refreshes its exclude list from the workspace's on every open.
 */
export async function prepareShadowRepo(
  gitDir: string,
  root: string,
  git: (args: string[], bare: boolean) => Promise<SnapshotResult<string>>,
): Promise<SnapshotResult<void>> {
  try {
    return await prepare(gitDir, root, git);
  } catch (error) {
    // A data dir that cannot be written (read-only, full): said, or undo is off without a word.
    const {code, message} = error as NodeJS.ErrnoException;
    const why = code === 'EROFS' || code === 'EACCES' || code === 'EPERM' || code === 'ENOENT' ? `${dirname(gitDir)} cannot be written (${code})` : message;
    return {ok: false, error: {code: 'git-failed', message: `Undo is off for this session: its snapshots cannot be kept, as ${why}.`}};
  }
}

async function prepare(gitDir: string, root: string, git: (args: string[], bare: boolean) => Promise<SnapshotResult<string>>): Promise<SnapshotResult<void>> {
  if (!(await hasHead(gitDir))) {
    // Made beside it and renamed into place whole: two nibs starting in one workspace at once
    // both ran `git init` in the same folder, and the loser's config came out with its settings
    // twice ("core.filemode has multiple values"), which left that session without snapshots.
    const building = besideName(gitDir);
    await mkdir(building, {recursive: true, mode: 0o700});
    const created = await git(['init', '--quiet', '--bare', building], true);
    if (!created.ok) {
      await rm(building, {recursive: true, force: true});
      return created;
    }
    // One append instead of a `git config` process per setting (15 at a workspace's first
    // session). git reads the last value of a key, so `core.bare = false` overrides init's `true`.
    await appendFile(join(building, 'config'), configText(SHADOW_SETTINGS));
    await mkdir(join(building, 'info'), {recursive: true});
    await writeFile(join(building, 'info', 'attributes'), ATTRIBUTES);
    // The rename replaces nothing but an empty folder: another nib got there first (a complete
    // repository is there now), and that one is used. Nothing there is ever deleted: a second
    // nib doing the same could delete the repository the first had just put in place.
    if (!(await rename(building, gitDir).then(() => true, () => false))) {
      if (await isStaleWreck(gitDir)) {
        // An older nib's failed start (no HEAD, and not one being made now): moved aside, where
        // pruning removes it a day later, and this one takes its place.
        await rename(gitDir, besideName(gitDir)).catch(() => {});
        if (await rename(building, gitDir).then(() => true, () => false)) return excludeLikeWorkspace(gitDir, root);
      }
      await rm(building, {recursive: true, force: true});
      if (!(await hasHead(gitDir))) {
        return {ok: false, error: {code: 'git-failed', message: `Undo is off for this session: ${gitDir} is not a repository nib made; remove it and start nib again.`}};
      }
    }
  }
  return excludeLikeWorkspace(gitDir, root);
}

/** The workspace's own exclude list applies to its snapshots too. */
async function excludeLikeWorkspace(gitDir: string, root: string): Promise<SnapshotResult<void>> {
  const userExclude = await readFile(join(root, '.git', 'info', 'exclude'), 'utf8').catch(() => '');
  await writeFile(join(gitDir, 'info', 'exclude'), userExclude);
  return {ok: true, value: undefined};
}

const hasHead = (gitDir: string) => stat(join(gitDir, 'HEAD')).then(() => true, () => false);

/** A name beside the repository's place (`<ws>.git.<pid>-<random>`): where one is built, or a wreck is moved; pruneSnapshots removes a day-old one. */
const besideName = (gitDir: string) => `${gitDir}.${process.pid}-${Math.random().toString(36).slice(2)}`;
const BESIDE = /\.git\.\d+-[a-z0-9]+$/;

/** A folder at the repository's place with no HEAD, untouched for a minute: nobody is making it now. */
async function isStaleWreck(gitDir: string): Promise<boolean> {
  if (await hasHead(gitDir)) return false;
  const info = await stat(gitDir).catch(() => null);
  return info !== null && info.mtimeMs < Date.now() - 60_000;
}

/** `[section] key = value` lines, in git's config file format. */
function configText(settings: ReadonlyArray<readonly [string, string]>): string {
  return settings.map(([key, value]) => {
    const dot = key.indexOf('.');
    return `[${key.slice(0, dot)}]\n\t${key.slice(dot + 1)} = ${value}\n`;
  }).join('');
}

/** A file may come back where the turn left a directory (now empty) or a symlink. */
export async function clearWay(root: string, path: string): Promise<void> {
  const full = join(root, path);
  const info = await lstat(full).catch(() => null);
  if (info?.isDirectory()) await rm(full, {recursive: true, force: true});
}

/** Folders a restore emptied go too; rmdir refuses non-empty ones, which is exactly the check wanted. */
export async function removeEmptyParents(root: string, paths: string[]): Promise<void> {
  const dirs = new Set<string>();
  for (const path of paths) for (let dir = dirname(path); dir !== '.' && dir !== ''; dir = dirname(dir)) dirs.add(dir);
  for (const dir of [...dirs].sort((a, b) => b.split(sep).length - a.split(sep).length)) {
    await rmdir(join(root, dir)).catch(() => {});
  }
}
