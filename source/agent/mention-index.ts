import fuzzysort, {type Snapshot} from 'fuzzysort';
import {walk} from '../tools/fs/walk.js';

/** Never offered: version-control internals and installed packages drown what a person means. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

/** How many candidates the completion list is given; it shows fewer rows. */
const MAX_CANDIDATES = 50;

/**
 * The workspace's paths for `@` completion: walked once (honouring the ignore files, like list and
 * grep), then filtered per keystroke by a fuzzy matcher over a prepared snapshot, so a keystroke
 * costs a search, never a walk (bench/mentions.mjs measures both on 50,000 files).
 * Directories end in `/`, so a person can attach a folder's listing.
 */
export class MentionIndex {
  private paths: readonly string[] = [];
  private shallowFirst: readonly string[] = [];
  private snapshot: Snapshot | null = null;
  private building: Promise<void> | null = null;
  private stale = true;

  constructor(
    private readonly root: string,
    /** Told when a (re)build finishes, so a list that is open can redraw with the new paths. */
    private readonly onReady?: () => void,
  ) {}

  /** True once a walk has finished (the first `@` may come before it). */
  get ready(): boolean {
    return this.snapshot !== null;
  }

  /** Every path found by the last walk, in walk order. */
  get entries(): readonly string[] {
    return this.paths;
  }

  /**
   * Starts a walk unless one runs or the index is fresh. Later walks (after `invalidate`) keep
   * serving the old paths until they finish.
   */
  build(): Promise<void> {
    if (this.building) return this.building;
    if (!this.stale) return Promise.resolve();
    this.stale = false;
    this.building = this.walk().finally(() => {
      this.building = null;
      this.onReady?.();
    });
    return this.building;
  }

  /** Files may have changed (a turn ended, a command ran): the next `build` walks again. */
  invalidate(): void {
    this.stale = true;
  }

  /** The best matches for what follows the `@`, best first; shallow paths first for an empty query. */
  search(query: string, limit = MAX_CANDIDATES): string[] {
    if (!this.snapshot) return [];
    if (query === '') return this.shallowFirst.slice(0, limit);
    return fuzzysort.go(query, this.snapshot, {limit, threshold: 0}).map(result => result.target);
  }

  private async walk(): Promise<void> {
    const found: string[] = [];
    await walk({dir: this.root, includeHidden: true, skipDirs: SKIPPED_DIRS}, entry => {
      found.push(entry.isDirectory ? `${entry.relative}/` : entry.relative);
    });
    this.paths = found;
    this.shallowFirst = [...found].sort((a, b) => depthOf(a) - depthOf(b) || (a < b ? -1 : a > b ? 1 : 0)).slice(0, MAX_CANDIDATES);
    const snapshot = fuzzysort.snapshot(found);
    // The snapshot finishes its preparation on the first search; do it here, not on a keystroke
    // (it cost the first keystroke 60 ms on 50,000 paths).
    fuzzysort.go('a', snapshot, {limit: 1});
    this.snapshot = snapshot;
  }
}

function depthOf(entry: string): number {
  let depth = 0;
  for (let index = 0; index < entry.length - 1; index += 1) if (entry[index] === '/') depth += 1;
  return depth;
}
