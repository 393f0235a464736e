import {realpath} from 'node:fs/promises';
import type {ApprovalMode} from '../../core/approval-mode.js';
import {compactHistory, type CompactResult} from '../compact.js';
import {ContextTracker} from '../context.js';
import type {AgentEvent} from '../../core/events.js';
import {loadInstructions, type Instructions} from './instructions.js';
import type {LoopCompaction} from '../loop.js';
import type {Message} from '../../core/messages.js';
import {createRedactor, type Redactor} from '../config/redact.js';
import {
  SessionLog,
  dataDir,
  findSession,
  latestSession,
  loadSession,
  pruneSessions,
  sessionsDir,
  type LoadedSession,
  type SessionSummary,
  type SnapshotRecord,
} from './log.js';
import {Snapshots, pruneSnapshots} from './snapshots.js';
import type {ChatProvider} from '../../core/chat.js';

/**
 * Everything #5 adds around one run of the loop, shared by print mode and the TUI: the session
 * log (new or resumed), project instructions, context tracking and compaction, and per-turn
 * snapshots. Callers feed it every loop event through observe() and await it.
 */

export type SessionChoice =
  /** A fresh session. */
  | {kind: 'new'}
  /** The workspace's latest session (`--continue`). */
  | {kind: 'latest'}
  /** A session by id or id prefix (`--resume ID`). */
  | {kind: 'id'; id: string};

export type WorkspaceSessionOptions = {
  cwd: string;
  model: string;
  apiKey: string | undefined;
  choice: SessionChoice;
  retentionDays: number;
  contextWindow: number;
  autoCompact: number | null;
  env?: NodeJS.ProcessEnv;
};

export class WorkspaceSession {
  readonly root: string;
  readonly data: string;
  readonly dir: string;
  log: SessionLog;
  /** The resumed session as loaded (for re-rendering its transcript), or null for a new one. */
  loaded: LoadedSession | null;
  /** Things to tell the person at start: a damaged log, a missing session, cut instructions. */
  readonly notices: string[];
  readonly instructions: Instructions;
  readonly tracker: ContextTracker;
  /** User turns so far (the next turn is turns + 1). */
  turns: number;
  /** Snapshot records of this session, oldest first. */
  readonly snapshots: SnapshotRecord[];
  /** Built once from the environment at start, used for every log this session writes. */
  private readonly redact: Redactor;
  private store: Promise<Snapshots | null> | null = null;
  private snapshotNotice: string | null = null;
  private undoNote: string | null = null;
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
    tracker: ContextTracker;
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
    this.tracker = init.tracker;
    this.turns = init.loaded?.turns ?? 0;
    this.snapshots = [...(init.loaded?.snapshots ?? [])];
  }

  static async open(options: WorkspaceSessionOptions): Promise<WorkspaceSession> {
    const env = options.env ?? process.env;
    const root = await realpath(options.cwd).catch(() => options.cwd);
    const data = dataDir(env);
    const dir = sessionsDir(data, root);
    const redact = createRedactor(env, [{name: 'apiKey', value: options.apiKey}]);
    const notices: string[] = [];

    const [instructions] = await Promise.all([
      loadInstructions({cwd: root, env}),
      // Retention is housekeeping: a failure to prune must not stop nib, nor slow its start.
      pruneSessions(data, {retentionDays: options.retentionDays})
        .then(() => void pruneSnapshots(data, {retentionDays: options.retentionDays}).catch(() => {}))
        .catch(() => {}),
    ]);
    if (instructions.notice) notices.push(instructions.notice);

    let loaded: LoadedSession | null = null;
    if (options.choice.kind !== 'new') {
      const path = options.choice.kind === 'latest' ? await latestSession(dir) : await findSession(dir, options.choice.id);
      if (path === null) notices.push('No earlier session in this workspace; starting a new one.');
      else if (typeof path === 'object' && !path.ok) notices.push(`${path.error.message} Starting a new session.`);
      else {
        const result = await loadSession(typeof path === 'string' ? path : path.value);
        if (result.ok) {
          loaded = result.value;
          notices.push(...loaded.warnings);
        } else {
          notices.push(`${result.error.message} Starting a new session.`);
        }
      }
    }
    const log = loaded
      ? SessionLog.reopen(loaded, {redact})
      : SessionLog.create({dir, cwd: root, model: options.model, redact});
    const tracker = new ContextTracker({window: options.contextWindow, compactAt: options.autoCompact});
    return new WorkspaceSession({root, data, dir, log, loaded, notices, instructions, tracker, redact});
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
  async observe(event: AgentEvent, historyLength: number): Promise<void> {
    this.tracker.observe(event, historyLength);
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

  /** The loop's compaction hook, with this session's thresholds. */
  compaction(provider: ChatProvider): LoopCompaction {
    return {
      shouldCompact: history => this.tracker.shouldCompact(history),
      compact: (history, signal) => compactHistory({provider, history, keepTokens: this.tracker.keepTokens, signal}),
    };
  }

  /**
   * /compact: asked for by name, so it compacts even a short conversation (keeping about its last
   * quarter). The caller swaps the returned history in.
   */
  async compactNow(provider: ChatProvider, history: readonly Message[], signal: AbortSignal): Promise<CompactResult> {
    const keepTokens = Math.min(this.tracker.keepTokens, Math.floor(this.tracker.tokens(history) / 4));
    const result = await compactHistory({provider, history, keepTokens, signal});
    if (!result.ok) return result;
    this.tracker.reset();
    this.log.recordCompaction(result.value.history, result.value.summary);
    await this.guardLog(() => this.log.flush());
    return result;
  }

  /** /clear: the conversation starts over in a new log (the old one stays resumable). */
  async startFresh(model: string): Promise<void> {
    await this.snapshotting;
    await this.guardLog(() => this.log.close());
    this.log = SessionLog.create({dir: this.dir, cwd: this.root, model, redact: this.redact});
    this.loaded = null;
    this.turns = 0;
    this.snapshots.splice(0);
    this.tracker.reset();
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
    this.tracker.reset();
    this.store = null;
  }

  /** Starts building the snapshot index in the background (interactive start); turns wait for it. */
  warmUp(): void {
    this.warming ??= this.snapshotStore()
      .then(store => store?.refresh())
      .then(() => {}, () => {});
  }

  /**
   * Before a turn that may change files (any mode but plan): records the workspace so /undo can
   * bring it back. Failures only cost undo, never the turn.
   */
  async beforeTurn(mode: ApprovalMode): Promise<void> {
    if (mode === 'plan') return;
    await this.snapshot(this.turns + 1, 'before');
  }

  /** After a turn: the reference for "did the person change files since?". */
  async afterTurn(mode: ApprovalMode): Promise<void> {
    if (mode === 'plan' && !this.snapshots.some(s => s.turn === this.turns)) return;
    await this.snapshot(this.turns, 'after');
  }

  /**
   * Restores the workspace to before turn `turn` (the last turn with a snapshot by default).
   * Call planUndo first to show the diff and the conflicts, and ask.
   */
  async undo(turn?: number): Promise<{ok: true; value: {turn: number; restored: string[]; deleted: string[]}} | {ok: false; error: string}> {
    const found = await this.undoTarget(turn);
    if (!found.ok) return found;
    const {store, target} = found.value;
    const restored = await store.restore(target.id);
    if (!restored.ok) return {ok: false, error: restored.error.message};
    // The turns undone are forgotten, so the next /undo goes one further back.
    this.snapshots.splice(0, this.snapshots.length, ...this.snapshots.filter(s => s.turn < target.turn));
    this.log.recordUndo(target.turn);
    await this.guardLog(() => this.log.flush());
    this.undoNote = `(Note from nib: the user undid turn ${target.turn}${turn === undefined ? '' : ' and every later turn'}; the workspace files are back to how they were before it. Re-read files before relying on earlier changes.)`;
    return {ok: true, value: {turn: target.turn, ...restored.value}};
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
    const first = this.snapshots[0];
    if (!first) return {ok: false as const, error: 'No snapshot yet: nothing has been changed in this session.'};
    const store = await this.openStore();
    if (!store.ok) return store;
    const diff = await store.value.diff(first.id);
    return diff.ok ? {ok: true as const, value: diff.value} : {ok: false as const, error: diff.error.message};
  }

  /** A note for the model about an /undo, to prefix the next prompt with; read once. */
  takeUndoNote(): string | null {
    const note = this.undoNote;
    this.undoNote = null;
    return note;
  }

  async close(): Promise<void> {
    await this.snapshotting;
    await this.guardLog(() => this.log.close());
  }

  /** Opens the shadow repository on first use; null (with a notice) when git is missing. */
  private snapshotStore(): Promise<Snapshots | null> {
    this.store ??= Snapshots.open({root: this.root, data: this.data, session: this.log.id}).then(result => {
      if (result.ok) return result.value;
      this.snapshotNotice = result.error.message;
      return null;
    });
    return this.store;
  }

  /** The store for an explicit request (/undo, /diff): its failure is the answer, not a later notice. */
  private async openStore(): Promise<{ok: true; value: Snapshots} | {ok: false; error: string}> {
    const store = await this.snapshotStore();
    if (store) return {ok: true, value: store};
    const error = this.snapshotNotice ?? 'Snapshots are unavailable.';
    this.snapshotNotice = null;
    return {ok: false, error};
  }

  /** The snapshot taken before turn `turn` (1-based), or before the last turn that has one. */
  private async undoTarget(turn: number | undefined): Promise<{ok: true; value: {store: Snapshots; target: SnapshotRecord}} | {ok: false; error: string}> {
    await this.snapshotting;
    const befores = this.snapshots.filter(s => s.phase === 'before');
    const target = turn === undefined ? befores.at(-1) : befores.find(s => s.turn === turn);
    if (!target) return {ok: false, error: turn === undefined ? 'Nothing to undo: no turn has a snapshot yet.' : `No snapshot before turn ${turn}.`};
    const store = await this.openStore();
    return store.ok ? {ok: true, value: {store: store.value, target}} : store;
  }

  /**
   * Snapshots run one at a time, in call order: the TUI does not wait for a turn's closing
   * snapshot before giving the prompt back, and the next turn's (or /undo's) waits for it here.
   */
  private snapshot(turn: number, phase: 'before' | 'after'): Promise<void> {
    const next = this.snapshotting.then(() => this.takeSnapshot(turn, phase));
    this.snapshotting = next.catch(() => {});
    return next;
  }

  private async takeSnapshot(turn: number, phase: 'before' | 'after'): Promise<void> {
    await this.warming;
    const store = await this.snapshotStore();
    if (!store) return;
    const taken = await store.take(`${phase} turn ${turn} of ${this.log.id}`);
    if (!taken.ok) {
      this.snapshotNotice = `Snapshot failed (undo may not cover this turn): ${taken.error.message}`;
      return;
    }
    this.snapshots.push({type: 'snapshot', at: Date.now(), turn, phase, id: taken.value});
    this.log.recordSnapshot(turn, phase, taken.value);
    await this.guardLog(() => this.log.flush());
  }
}

/** What --continue / --resume ID ask for; a bare --resume is the picker's business. */
export function sessionChoice(flags: {continue: boolean; resume: string | true | undefined}): SessionChoice {
  if (typeof flags.resume === 'string') return {kind: 'id', id: flags.resume};
  if (flags.continue) return {kind: 'latest'};
  return {kind: 'new'};
}

/** One line per session for /sessions and print mode: id, date, turns, model, first prompt. */
export function formatSessionList(sessions: readonly SessionSummary[], width = 100): string[] {
  return sessions.map(session => {
    const when = new Date(session.updated).toISOString().slice(0, 16).replace('T', ' ');
    const head = `${session.id}  ${when}  ${String(session.turns).padStart(3)} turn${session.turns === 1 ? ' ' : 's'}  ${session.model}`;
    const room = Math.max(10, width - head.length - 2);
    const prompt = session.firstPrompt.length > room ? `${session.firstPrompt.slice(0, room - 1)}…` : session.firstPrompt;
    return `${head}  ${prompt}`;
  });
}

/** A line the screen shows that is not an agent event (the reducer's `notice` action). */
export type ReplayNotice = {type: 'notice'; text: string};

/**
 * The events that rebuild a resumed session's transcript through the same reducer that drew it
 * the first time: recorded events as they were, answers as one text delta each (deltas are not
 * stored), compactions and undos as notices, and an end for a turn the log never saw end.
 */
export function replayEvents(loaded: Pick<LoadedSession, 'records'>): Array<AgentEvent | ReplayNotice> {
  const out: Array<AgentEvent | ReplayNotice> = [];
  let open = false;
  let lastAt = 0;
  for (const record of loaded.records) {
    lastAt = Math.max(lastAt, record.at);
    switch (record.type) {
      case 'event': {
        const event = record.event;
        if (event.type === 'turn-start') {
          if (open) out.push({type: 'turn-end', reason: 'aborted', at: record.at});
          open = true;
        }
        if (event.type === 'turn-end') open = false;
        out.push(event);
        break;
      }
      case 'message': {
        const {message} = record;
        if ((message.type === 'assistant-text' || message.type === 'assistant-tool-calls') && message.content) {
          out.push({type: 'text-delta', text: message.content, at: record.at});
        }
        break;
      }
      case 'compaction':
        out.push({type: 'notice', text: 'Context compacted: older turns were summarised for the model.'});
        break;
      case 'undo':
        // An undo happens between turns: a turn still open here was cut off by a crash.
        if (open) out.push({type: 'turn-end', reason: 'aborted', at: record.at});
        open = false;
        out.push({type: 'notice', text: `Undid turn ${record.turn}: files restored to before it.`});
        break;
      default:
        break;
    }
  }
  if (open) out.push({type: 'turn-end', reason: 'aborted', at: lastAt});
  return out;
}
