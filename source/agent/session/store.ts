import {realpath} from 'node:fs/promises';
import {SessionWindow} from './window.js';
import type {AgentEvent} from '../../core/events.js';
import {loadInstructions, type Instructions} from './instructions.js';
import type {Message} from '../../core/messages.js';
import {createRedactor, type Redactor} from '../config/redact.js';
import {SessionLog, dataDir, sessionsDir, type SnapshotRecord} from './log.js';
import {loadChoice, type LoadedSession, type SessionChoice} from './saved.js';
import {retainDaily} from './retention.js';

export type {SessionChoice} from './saved.js';
import {Snapshots} from './snapshots.js';
import {keptByConversationRewind, UNRECORDED, undoSnapshot} from './undo-points.js';
import type {Result} from '../../core/result.js';

/**
 * What a session keeps on disk and counts: the session log (new or resumed), project
 * instructions, the context tracker, and per-turn snapshots. AgentSession feeds it every loop
 * event through observe() and awaits it; nothing else talks to it.
 */

export type SessionStoreOptions = {
  cwd: string;
  model: string;
  apiKey: string | undefined;
  choice: SessionChoice;
  retentionDays: number;
  /** The window the person set for a model (null: ask the server), for `model` and after a /model switch. */
  windowFor: (model: string) => number | null;
  autoCompact: number | null;
  env?: NodeJS.ProcessEnv;
};

export class SessionStore {
  readonly root: string;
  readonly data: string;
  readonly dir: string;
  log: SessionLog;
  /** The resumed session as loaded (for re-rendering its transcript), or null for a new one. */
  loaded: LoadedSession | null;
  /** Things to tell the person at start: a damaged log, a missing session, cut instructions. */
  readonly notices: string[];
  readonly instructions: Instructions;
  /** The context window (configured, asked from the server, or learned from a refusal) and its fill. */
  readonly window: SessionWindow;
  /** User turns so far (the next turn is turns + 1). */
  turns: number;
  /** Snapshot records of this session, oldest first. */
  readonly snapshots: SnapshotRecord[];
  /** Built once from the environment at start, used for every log this session writes. */
  private readonly redact: Redactor;
  private store: Promise<Result<Snapshots>> | null = null;
  private snapshotNotice: string | null = null;
  private warming: Promise<void> | null = null;
  private snapshotting: Promise<void> = Promise.resolve();
  private logProblem: string | null = null;
  private logFailed = false;

  private constructor(init: {
    root: string;
    data: string;
    dir: string;
    log: SessionLog;
    loaded: LoadedSession | null;
    notices: string[];
    instructions: Instructions;
    window: SessionWindow;
    redact: Redactor;
  }) {
    this.redact = init.redact;
    this.root = init.root;
    this.data = init.data;
    this.dir = init.dir;
    this.log = init.log;
    this.loaded = init.loaded;
    this.notices = init.notices;
    this.instructions = init.instructions;
    this.window = init.window;
    this.turns = init.loaded?.turns ?? 0;
    this.snapshots = [...(init.loaded?.snapshots ?? [])];
  }

  static async open(options: SessionStoreOptions): Promise<SessionStore> {
    const env = options.env ?? process.env;
    const root = await realpath(options.cwd).catch(() => options.cwd);
    const data = dataDir(env);
    const dir = sessionsDir(data, root);
    const redact = createRedactor(env, [{name: 'apiKey', value: options.apiKey}]);
    const notices: string[] = [];

    const [instructions] = await Promise.all([
      loadInstructions({cwd: root, env}),
      retainDaily(data, options.retentionDays),
    ]);
    if (instructions.notice) notices.push(instructions.notice);

    const loaded = await loadChoice(dir, options.choice, notices);
    const log = loaded
      ? SessionLog.reopen(loaded, {redact})
      : SessionLog.create({dir, cwd: root, model: options.model, redact});
    const window = new SessionWindow({configured: options.windowFor(options.model), compactAt: options.autoCompact, configuredFor: options.windowFor});
    return new SessionStore({root, data, dir, log, loaded, notices, instructions, window, redact});
  }

  /** The conversation to continue, without a system message (the caller builds a fresh one). */
  get history(): Message[] {
    return this.loaded ? [...this.loaded.history] : [];
  }

  /**
   * Records an event (flushing where due) and updates the context count. Await it. Never throws:
   * a log that cannot be written (full disk, read-only data dir) costs resume, not the turn; the
   * problem is reported once through takeNotices().
   */
  async observe(event: AgentEvent, history: readonly Message[]): Promise<void> {
    this.window.observe(event, history);
    if (event.type === 'turn-start') this.turns++;
    await this.guardLog(() => this.log.observe(event));
  }

  /** Problems to tell the person about (log not writable, snapshot failed), each once. */
  takeNotices(): string[] {
    const notices = [this.logProblem, this.snapshotNotice].filter((notice): notice is string => notice !== null);
    this.logProblem = null;
    this.snapshotNotice = null;
    return notices;
  }

  private async guardLog(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (this.logFailed) return;
      this.logFailed = true;
      this.logProblem = `The session log ${this.log.path} could not be written (${error instanceof Error ? error.message : String(error)}); this session will not be resumable.`;
    }
  }

  /** A compaction the session made: the log keeps the summary and the history it replaced. */
  async recordCompaction(history: readonly Message[], summary: string): Promise<void> {
    this.window.tracker.reset();
    this.log.recordCompaction([...history], summary);
    await this.guardLog(() => this.log.flush());
  }

  /** /rewind: the conversation is back to before `turn`; later turns' snapshots are void and their numbers reused. */
  async rewindConversation(turn: number, history: readonly Message[]): Promise<void> {
    await this.snapshotting;
    this.turns = turn - 1;
    this.snapshots.splice(0, this.snapshots.length, ...keptByConversationRewind(this.snapshots, turn));
    this.window.tracker.reset();
    this.log.recordRewind(turn, history);
    await this.guardLog(() => this.log.flush());
  }

  /** /clear: the conversation starts over in a new log (the old one stays resumable). */
  async startFresh(model: string): Promise<void> {
    await this.snapshotting;
    await this.guardLog(() => this.log.close());
    this.log = SessionLog.create({dir: this.dir, cwd: this.root, model, redact: this.redact});
    this.loaded = null;
    this.turns = 0;
    this.snapshots.splice(0);
    this.window.tracker.reset();
    this.store = null;
  }

  /** Switches to another session of this workspace (/resume inside the TUI). */
  async switchTo(loaded: LoadedSession): Promise<void> {
    await this.snapshotting;
    await this.guardLog(() => this.log.close());
    this.log = SessionLog.reopen(loaded, {redact: this.redact});
    this.loaded = loaded;
    this.turns = loaded.turns;
    this.snapshots.splice(0, this.snapshots.length, ...loaded.snapshots);
    this.window.tracker.reset();
    this.store = null;
  }

  /** Starts building the snapshot index in the background (interactive start); turns wait for it. */
  warmUp(): void {
    this.warming ??= this.snapshotStore()
      .then(store => (store.ok ? store.value.refresh() : undefined))
      .then(() => {}, () => {});
  }

  /**
   * Before the first call of turn `turn` that may change files: records the workspace so /undo can
   * bring it back. Failures only cost undo, never the turn. `recorded` false (print mode in ask or
   * plan takes no snapshots): the turn is only marked as one that changed files without a snapshot.
   */
  async beforeTurn(turn: number, recorded = true): Promise<void> {
    await this.snapshot(turn, 'before', recorded);
  }

  /** After a turn that took its undo point: the reference for "did the person change files since?". */
  async afterTurn(turn: number): Promise<void> {
    await this.snapshot(turn, 'after');
  }

  /**
   * Restores the workspace to before turn `turn` (the last turn with a snapshot by default).
   * Call planUndo first to show the diff and the conflicts, and ask.
   */
  async undo(turn?: number): Promise<Result<{turn: number; restored: string[]; deleted: string[]; note: string}>> {
    const found = await this.undoTarget(turn);
    if (!found.ok) return found;
    const {store, target} = found.value;
    const restored = await store.restore(target.id);
    if (!restored.ok) return {ok: false, error: restored.error.message};
    // The turns undone are forgotten, so the next /undo goes one further back.
    this.snapshots.splice(0, this.snapshots.length, ...this.snapshots.filter(s => s.turn < target.turn));
    this.log.recordUndo(target.turn);
    await this.guardLog(() => this.log.flush());
    const note = `(Note from nib: the user undid turn ${target.turn}${turn === undefined ? '' : ' and every later turn'}; the workspace files are back to how they were before it. Re-read files before relying on earlier changes.)`;
    return {ok: true, value: {turn: target.turn, ...restored.value, note}};
  }

  /** The diff /undo would apply and the files the person changed since the agent's last turn. */
  async planUndo(turn?: number) {
    const found = await this.undoTarget(turn);
    if (!found.ok) return found;
    const {store, target} = found.value;
    const lastAfter = this.snapshots.filter(s => s.phase === 'after').at(-1);
    const plan = await store.planUndo(target.id, lastAfter?.id);
    return plan.ok ? {ok: true as const, value: {turn: target.turn, ...plan.value}} : {ok: false as const, error: plan.error.message};
  }

  /** Everything changed in the workspace since this session's first snapshot (/diff). */
  async diffSinceStart() {
    await this.snapshotting;
    const first = this.snapshots.find(s => s.id !== UNRECORDED);
    const store = await this.openStore();
    if (!store.ok) return store;
    if (!first) return {ok: false as const, error: this.snapshots.length > 0 ? 'No snapshot to compare with: the turns that changed files took none (snapshots were off or failed).' : 'No snapshot yet: nib has not changed a file in this session.'};
    const diff = await store.value.diff(first.id);
    return diff.ok ? {ok: true as const, value: diff.value} : {ok: false as const, error: diff.error.message};
  }

  async close(): Promise<void> {
    await this.snapshotting;
    await this.guardLog(() => this.log.close());
  }

  /** Opens the shadow repository on first use; its failure (git missing) is said once as a notice. */
  private snapshotStore(): Promise<Result<Snapshots>> {
    this.store ??= Snapshots.open({root: this.root, data: this.data, session: this.log.id, fresh: this.loaded === null}).then(result => {
      if (!result.ok) this.snapshotNotice = result.error.message;
      return result.ok ? result : {ok: false, error: result.error.message};
    });
    return this.store;
  }

  /** The store for an explicit request (/undo, /diff): its failure is the answer, every time it is asked. */
  private async openStore(): Promise<Result<Snapshots>> {
    const store = await this.snapshotStore();
    if (!store.ok && this.snapshotNotice === store.error) this.snapshotNotice = null;
    return store;
  }

  /** The snapshot taken before turn `turn` (1-based), or before the last turn that has one. */
  private async undoTarget(turn: number | undefined): Promise<Result<{store: Snapshots; target: SnapshotRecord}>> {
    await this.snapshotting;
    const target = undoSnapshot(this.snapshots, turn);
    if (!target) return {ok: false, error: turn === undefined ? 'Nothing to undo: no turn has changed files yet.' : `Nothing to undo: no turn from ${turn} on has changed files.`};
    const store = await this.openStore();
    if (store.ok && target.id === UNRECORDED) return {ok: false, error: `No snapshot before turn ${target.turn}, which changed files (snapshots were off or failed), so undo cannot take it back.`};
    return store.ok ? {ok: true, value: {store: store.value, target}} : store;
  }

  /**
   * Snapshots run one at a time, in call order: the TUI does not wait for a turn's closing
   * snapshot before giving the prompt back, and the next turn's (or /undo's) waits for it here.
   */
  private snapshot(turn: number, phase: 'before' | 'after', recorded = true): Promise<void> {
    const next = this.snapshotting.then(() => (recorded ? this.takeSnapshot(turn, phase) : this.record(turn, phase, UNRECORDED)));
    this.snapshotting = next.catch(() => {});
    return next;
  }

  private async takeSnapshot(turn: number, phase: 'before' | 'after'): Promise<void> {
    await this.warming;
    const store = await this.snapshotStore();
    const taken = store.ok ? await store.value.take(`${phase} turn ${turn} of ${this.log.id}`) : null;
    if (taken?.ok) return this.record(turn, phase, taken.value);
    if (taken) this.snapshotNotice = `Snapshot failed (undo may not cover this turn): ${taken.error.message}`;
    if (phase === 'before') await this.record(turn, phase, UNRECORDED);
  }

  private async record(turn: number, phase: 'before' | 'after', id: string): Promise<void> {
    this.snapshots.push({type: 'snapshot', at: Date.now(), turn, phase, id});
    this.log.recordSnapshot(turn, phase, id);
    await this.guardLog(() => this.log.flush());
  }
}
