import {chmod, lstat, rm, stat, unlink} from 'node:fs/promises';
import {join} from 'node:path';
import {workspaceKey} from './log.js';
import {clearWay, GITLINK, MODES_TRAILER, parseRaw, prepareShadowRepo, removeEmptyParents, runGit, STALE_LOCK_MS, WORKSPACE} from './snapshot-git.js';
import type {RestoreReport, SnapshotRef, SnapshotResult, UndoPlan, WorkspaceChange} from './snapshot-git.js';

export {pruneSnapshots, WORKSPACE, type WorkspaceChange} from './snapshot-git.js';

/**
 * Workspace snapshots for /undo, in a shadow git repository that lives in nib's data dir:
 * GIT_DIR is ours, GIT_WORK_TREE is the workspace. `git add -A` + `write-tree` records every
 * tracked and untracked, non-ignored file, including what a bash command did, and the index's
 * stat cache makes it cheap on an unchanged tree. The workspace's own .git (index, refs, config)
 * is never read or written: git never walks into a `.git` entry of the work tree.
 */

export class Snapshots {
  readonly root: string;
  readonly gitDir: string;
  private readonly ref: string;
  private last: {commit: string; tree: string} | null = null;
  /**
   * Exact permission bits of the workspace's files where git's two modes (644/755) would lose
   * them (0600, 0775…), as of the last snapshot. Stored in each snapshot's commit message, so a
   * deleted file comes back with its exact mode. Kept up to date from the files each snapshot
   * changed, so an unchanged tree costs nothing; a chmod alone between turns goes unseen.
   */
  private modes: Map<string, number> | null = null;
  /** The tree `modes` describes; null before the first full scan. */
  private modesTree: string | null = null;

  private constructor(root: string, gitDir: string, session: string) {
    this.root = root;
    this.gitDir = gitDir;
    this.ref = `refs/nib/${session.replace(/[^A-Za-z0-9._-]/g, '_')}`;
  }

  /**
   * Opens (creating on first use) the shadow repository of a workspace.
   * `root` must be the workspace's real path; `data` is nib's data dir.
   */
  static async open(options: {root: string; data: string; session: string; fresh?: boolean; signal?: AbortSignal}): Promise<SnapshotResult<Snapshots>> {
    const gitDir = join(options.data, 'snapshots', `${workspaceKey(options.root)}.git`);
    const store = new Snapshots(options.root, gitDir, options.session);
    const ready = await store.init(options.fresh === true);
    return ready.ok ? {ok: true, value: store} : ready;
  }

  /** Records the workspace as it is now; returns the snapshot id (a commit). */
  async take(label: string): Promise<SnapshotResult<string>> {
    const tree = await this.currentTree();
    if (!tree.ok) return tree;
    if (this.last && this.last.tree === tree.value) return {ok: true, value: this.last.commit};
    const parent = this.last ? ['-p', this.last.commit] : [];
    const modes = await this.updateModes(tree.value);
    const message = modes.size > 0 ? `${label || 'snapshot'}\n\n${MODES_TRAILER}${JSON.stringify(Object.fromEntries(modes))}` : label || 'snapshot';
    const commit = await this.git(['commit-tree', tree.value, ...parent, '-m', message]);
    if (!commit.ok) return commit;
    const id = commit.value.trim();
    const updated = await this.git(['update-ref', this.ref, id]);
    if (!updated.ok) return updated;
    this.last = {commit: id, tree: tree.value};
    return {ok: true, value: id};
  }

  /**
   * Brings the shadow index up to date without recording anything: the first `git add` in a big
   * workspace hashes every file (seconds), and doing it while the person types keeps that wait
   * off the first turn.
   */
  async refresh(): Promise<SnapshotResult<void>> {
    const added = await this.git(['add', '-A', '--ignore-errors', '--', '.']);
    if (!added.ok) return added;
    // The first snapshot stats every file for its mode; done here, that wait is off the turn too.
    if (this.last === null && this.modesTree === null) {
      const tree = await this.git(['write-tree']);
      if (tree.ok) await this.updateModes(tree.value.trim());
    }
    return {ok: true, value: undefined};
  }

  /** Files that differ between two snapshots (or a snapshot and the workspace), with patches. */
  async diff(from: SnapshotRef, to: SnapshotRef = WORKSPACE): Promise<SnapshotResult<WorkspaceChange[]>> {
    const a = await this.treeOf(from);
    if (!a.ok) return a;
    const b = await this.treeOf(to);
    if (!b.ok) return b;
    return this.diffTrees(a.value, b.value, true);
  }

  /** Paths that changed since a snapshot (the person's own edits after a turn, for /undo). */
  async changedSince(id: string): Promise<SnapshotResult<string[]>> {
    const current = await this.currentTree();
    return current.ok ? this.pathsBetween(id, current.value) : current;
  }

  /**
   * What restoring `target` would do, and which of those files the person changed after
   * `lastAfter` (the snapshot taken when the agent's last turn ended). The workspace is staged
   * once for both questions: staging is the slow part on a large tree.
   */
  async planUndo(target: string, lastAfter?: string): Promise<SnapshotResult<UndoPlan>> {
    const current = await this.currentTree();
    if (!current.ok) return current;
    const wanted = await this.treeOf(target);
    if (!wanted.ok) return wanted;
    const changes = await this.diffTrees(current.value, wanted.value, true);
    if (!changes.ok) return changes;
    if (!lastAfter) return {ok: true, value: {changes: changes.value, conflicts: []}};
    const touched = await this.pathsBetween(lastAfter, current.value);
    if (!touched.ok) return touched;
    const planned = new Set(changes.value.map(change => change.path));
    return {ok: true, value: {changes: changes.value, conflicts: touched.value.filter(path => planned.has(path))}};
  }

  /**
   * Makes every non-ignored file of the workspace what it was in the snapshot: changed files get
   * their bytes back (keeping their permission bits), files created since are deleted, deleted
   * ones come back with their bytes and git's mode (the executable bit). Ignored files are never
   * touched.
   */
  async restore(id: string): Promise<SnapshotResult<RestoreReport>> {
    const target = await this.treeOf(id);
    if (!target.ok) return target;
    const current = await this.currentTree();
    if (!current.ok) return current;
    const changes = await this.diffTrees(current.value, target.value, false);
    if (!changes.ok) return changes;

    const deleted: string[] = [];
    const restored: string[] = [];
    const keepModes = new Map<string, number>();
    // Deletions first: a file may come back where a directory was created since.
    for (const change of changes.value) {
      if (change.oldMode === GITLINK) continue; // a nested repository: not ours to delete
      if (change.status === 'deleted' || change.status === 'type-changed') {
        await unlink(join(this.root, change.path)).catch(() => {}); // already gone is fine
        if (change.status === 'deleted') deleted.push(change.path);
      } else if (change.status === 'modified' && change.oldMode === change.newMode) {
        const info = await lstat(join(this.root, change.path)).catch(() => null);
        if (info?.isFile()) keepModes.set(change.path, info.mode & 0o7777);
      }
    }
    await removeEmptyParents(this.root, deleted);

    const wanted = changes.value.filter(change => change.status !== 'deleted' && change.newMode !== GITLINK).map(change => change.path);
    if (wanted.length > 0) {
      // A throwaway index holding the target tree, so checkout-index writes exactly its blobs.
      const env = {GIT_INDEX_FILE: join(this.gitDir, `restore-${process.pid}.index`)};
      const read = await this.git(['read-tree', target.value], {env});
      if (!read.ok) return read;
      for (const path of wanted) await clearWay(this.root, path);
      const written = await this.git(['checkout-index', '-f', '-z', '--stdin'], {env, input: wanted.join('\0')});
      await rm(env.GIT_INDEX_FILE, {force: true});
      if (!written.ok) return written;
      for (const [path, mode] of keepModes) await chmod(join(this.root, path), mode).catch(() => {});
      // Files that come back whole (deleted, or replaced by another kind) get their exact mode.
      const exact = await this.modesOf(id);
      for (const path of wanted) {
        const mode = exact.get(path);
        if (mode !== undefined && !keepModes.has(path)) await chmod(join(this.root, path), mode).catch(() => {});
      }
      restored.push(...wanted);
    }
    return {ok: true, value: {restored, deleted}};
  }

  /** The unusual modes as of `tree`: all files the first time, then only the ones that changed. */
  private async updateModes(tree: string): Promise<Map<string, number>> {
    if (this.modes === null) {
      this.modes = this.last ? await this.modesOf(this.last.commit) : new Map();
      this.modesTree = this.last?.tree ?? null;
    }
    let paths: string[];
    if (this.modesTree === null) {
      const listed = await this.git(['ls-files', '-z']);
      paths = listed.ok ? listed.value.split('\0').filter(Boolean) : [];
    } else paths = this.modesTree === tree ? [] : await this.changedPaths(this.modesTree, tree);
    const modes = this.modes;
    for (let start = 0; start < paths.length; start += 64) {
      await Promise.all(
        paths.slice(start, start + 64).map(async path => {
          const info = await lstat(join(this.root, path)).catch(() => null);
          const mode = info?.isFile() ? info.mode & 0o7777 : undefined;
          if (mode === undefined || mode === 0o644 || mode === 0o755) modes.delete(path);
          else modes.set(path, mode);
        }),
      );
    }
    this.modesTree = tree;
    return modes;
  }

  private async changedPaths(from: string, to: string): Promise<string[]> {
    const changes = await this.diffTrees(from, to, false);
    return changes.ok ? changes.value.map(change => change.path) : [];
  }

  private async modesOf(commit: string): Promise<Map<string, number>> {
    const body = await this.git(['cat-file', 'commit', commit]);
    const line = body.ok ? body.value.split('\n').find(text => text.startsWith(MODES_TRAILER)) : undefined;
    if (!line) return new Map();
    try {
      const parsed = JSON.parse(line.slice(MODES_TRAILER.length)) as Record<string, unknown>;
      return new Map(Object.entries(parsed).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
    } catch {
      return new Map();
    }
  }

  /** `fresh`: a new session, whose ref cannot exist yet (one `git` run fewer at every start). */
  private async init(fresh: boolean): Promise<SnapshotResult<void>> {
    const ready = await prepareShadowRepo(this.gitDir, this.root, (args, bare) => this.git(args, {bare}));
    if (!ready.ok || fresh) return ready;
    const tip = await this.git(['rev-parse', '--verify', '--quiet', this.ref]);
    if (tip.ok && tip.value.trim()) {
      const tree = await this.git(['rev-parse', `${tip.value.trim()}^{tree}`]);
      if (tree.ok) this.last = {commit: tip.value.trim(), tree: tree.value.trim()};
    }
    return {ok: true, value: undefined};
  }

  private async currentTree(): Promise<SnapshotResult<string>> {
    const added = await this.git(['add', '-A', '--ignore-errors', '--', '.']);
    if (!added.ok) return added;
    const tree = await this.git(['write-tree']);
    return tree.ok ? {ok: true, value: tree.value.trim()} : tree;
  }

  private async treeOf(ref: SnapshotRef): Promise<SnapshotResult<string>> {
    if (ref === WORKSPACE) return this.currentTree();
    const tree = await this.git(['rev-parse', '--verify', '--quiet', `${ref}^{tree}`]);
    if (!tree.ok || !tree.value.trim()) return {ok: false, error: {code: 'unknown-snapshot', message: `No snapshot ${ref}.`}};
    return {ok: true, value: tree.value.trim()};
  }

  /** Paths that differ between a snapshot and a tree; no patches, which only the person reads. */
  private async pathsBetween(id: string, tree: string): Promise<SnapshotResult<string[]>> {
    const from = await this.treeOf(id);
    if (!from.ok) return from;
    const changes = await this.diffTrees(from.value, tree, false);
    return changes.ok ? {ok: true, value: changes.value.map(change => change.path)} : changes;
  }

  private async diffTrees(a: string, b: string, withPatches: boolean): Promise<SnapshotResult<WorkspaceChange[]>> {
    const raw = await this.git(['diff-tree', '-r', '-z', '--raw', '--no-renames', a, b]);
    if (!raw.ok) return raw;
    const changes = parseRaw(raw.value);
    if (!withPatches || changes.length === 0) return {ok: true, value: changes};
    const patch = await this.git([
      '-c', 'diff.noprefix=false', '-c', 'color.ui=never',
      'diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--src-prefix=a/', '--dst-prefix=b/', a, b,
    ]);
    if (!patch.ok) return patch;
    const sections = patch.value.split(/^(?=diff --git )/m).filter(section => section.startsWith('diff --git '));
    // diff-tree and diff walk the same two trees in the same path order.
    if (sections.length === changes.length) changes.forEach((change, index) => (change.patch = sections[index]!));
    else if (changes[0]) changes[0].patch = patch.value;
    return {ok: true, value: changes};
  }

  /**
   * A git killed with SIGKILL leaves its index.lock behind, and every later snapshot would wait
   * for it forever. The shadow index is only a cache (each snapshot re-adds everything), so a
   * lock older than any real operation is removed.
   */
  private async clearStaleLock(): Promise<void> {
    const lock = join(this.gitDir, 'index.lock');
    const info = await stat(lock).catch(() => null);
    if (info && Date.now() - info.mtimeMs > STALE_LOCK_MS) await rm(lock, {force: true});
  }

  private async git(args: string[], options: {env?: Record<string, string>; input?: string; bare?: boolean} = {}): Promise<SnapshotResult<string>> {
    for (let attempt = 0; ; attempt++) {
      const result = await runGit(args, {
        cwd: this.root,
        env: options.bare ? {} : {GIT_DIR: this.gitDir, GIT_WORK_TREE: this.root, ...options.env},
        input: options.input,
      });
      // Another nib in the same workspace holds the shadow index for a moment: wait our turn.
      if (!result.ok && result.error.message.includes('index.lock') && attempt < 40) {
        await this.clearStaleLock();
        await new Promise(resolve => setTimeout(resolve, 50));
        continue;
      }
      return result;
    }
  }
}

