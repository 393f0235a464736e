import {nextMode, type ApprovalMode} from '../../core/approval-mode.js';
import type {ChatProvider} from '../../core/chat.js';
import type {Decision, TurnEndReason} from '../../core/events.js';
import type {Message} from '../../core/messages.js';
import type {Result} from '../../core/result.js';
import type {ToolContext} from '../../core/tool.js';
import type {McpControl} from '../mcp/control.js';
import {compactHistory} from '../compact.js';
import {runAgent, type LoopCompaction, type LoopTools} from '../loop.js';
import {deleteOther, listSessions, loadById, type SessionSummary} from './saved.js';
import {Approvals} from './approvals.js';
import {resumedNotice, stamp, type SessionEvent, type SessionListener} from './events.js';
import {replayEvents} from './replay.js';
import type {Guard} from '../guard/guard.js';

export type {SessionEvent, SessionListener} from './events.js';
import type {SessionStore} from './store.js';
import {PromptExtras} from './prompt-extras.js';
import {rewindTo, type RewindPoint, type RewindScope} from './rewind.js';
import {runUserCommandTurn, userCommandOf} from '../user-command.js';

export type {RewindScope} from './rewind.js';

export type AgentSessionInit = {
  store: SessionStore;
  /** Starts with the system message. */
  history: Message[];
  tools: LoopTools;
  /** The MCP servers whose tools are in `tools`; close() ends them. */
  mcp?: McpControl;
  context: ToolContext;
  mode: ApprovalMode;
  /** Builds the provider for a model; called again by setModel. */
  connect: (model: string) => ChatProvider;
  model: string;
  /** False in print mode: nobody is there to answer, so calls that would ask are refused. */
  canAsk: boolean;
  maxRounds: number;
  /** Permission rules, hooks and the sandbox (agent/guard). */
  guard?: Guard;
  /** Lines from opening the guard: no sandbox here, project rules waiting for trust. */
  notices?: readonly string[];
  now?: () => number;
};

type Busy = Result<void>;
const BUSY_MESSAGE = 'Wait for the turn to finish (or press esc) first.';
/** A stream read faster than it arrives never yields to timers; stepping out this often keeps a screen drawing. */
const YIELD_EVERY_MS = 50;
/** How long after the first frame the SDK and the tools load, if no prompt needed them first. */
const WARM_UP_DELAY_MS = 1500;

/**
 * One running conversation: the history, the approval mode and grants, the provider and model,
 * the read ledger (in `context`) and what is kept on disk (`store`). Print mode and the TUI both
 * drive it through its methods and see it through subscribe(); nothing else changes its state.
 */
export class AgentSession {
  readonly root: string;
  readonly tools: LoopTools;
  /** The rules in force, the hooks and the sandbox; /permissions lists and removes rules through it. */
  readonly guard: Guard | undefined;
  readonly mcp: McpControl | undefined;
  private readonly store: SessionStore;
  private readonly startNotices: string[];
  private readonly messages: Message[];
  private readonly context: ToolContext;
  private readonly connect: (model: string) => ChatProvider;
  private readonly canAsk: boolean;
  private readonly maxRounds: number;
  private readonly now: () => number;
  private readonly grants = new Set<string>();
  private readonly listeners = new Set<SessionListener>();
  private readonly approvals = new Approvals();
  private provider: ChatProvider;
  private currentMode: ApprovalMode;
  private running: AbortController | null = null;
  private isBusy = false;
  /** `!command` notes for the next prompt and the typed prompts /rewind offers. */
  private readonly extras: PromptExtras;
  private commandCount = 0;

  constructor(init: AgentSessionInit) {
    this.store = init.store;
    this.root = init.context.root;
    this.messages = init.history;
    this.tools = init.tools;
    this.mcp = init.mcp;
    this.context = init.context;
    this.connect = init.connect;
    this.provider = init.connect(init.model);
    this.currentMode = init.mode;
    this.canAsk = init.canAsk;
    this.maxRounds = init.maxRounds;
    this.now = init.now ?? Date.now;
    this.guard = init.guard;
    if (this.guard) this.guard.notify = text => this.emit({type: 'notice', text});
    this.startNotices = [...(init.notices ?? [])];
    this.extras = new PromptExtras(init.store.loaded);
  }

  /** SessionStart hooks; their warnings join the start notices. */
  async started(source: 'startup' | 'resume'): Promise<void> {
    this.startNotices.push(...((await this.guard?.sessionStart(source))?.warnings ?? []));
  }

  /** Background work the first turn needs (undo's snapshot index, the SDK, the tools); the TUI starts it once its first frame is drawn. */
  warmUp(): void {
    if (this.currentMode !== 'plan') this.store.warmUp();
    // Loading them holds the event loop ~50-100 ms: not while the first keys arrive.
    setTimeout(() => {
      void this.provider.prepare?.().catch(() => {});
      void this.tools.load?.().catch(() => {});
    }, WARM_UP_DELAY_MS).unref();
  }

  get mode(): ApprovalMode {
    return this.currentMode;
  }
  get model(): string {
    return this.provider.model;
  }
  get busy(): boolean {
    return this.isBusy;
  }
  get history(): readonly Message[] {
    return this.messages;
  }
  /** Where this session's log is written. */
  get logPath(): string {
    return this.store.log.path;
  }

  /** Every tool the model can be offered, for /tools and --help. */
  describeTools(): Array<{name: string; kind: string; description: string}> {
    return this.tools.describe();
  }

  subscribe(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What happened before anyone subscribed: a resumed transcript and the start notices. */
  startEvents(): SessionEvent[] {
    const loaded = this.store.loaded;
    return [
      ...(loaded ? replayEvents(loaded) : []),
      ...[...this.store.notices, ...this.startNotices].map(text => ({type: 'notice', text}) as const),
      ...(loaded ? [resumedNotice(loaded)] : []),
      this.contextEvent(),
    ];
  }

  /**
   * Runs one turn to its end. While a turn, a compaction, an undo or a resume runs, another prompt
   * is refused with 'busy' (the TUI queues it); nothing can splice the history under a turn.
   */
  async prompt(text: string, options: {signal?: AbortSignal} = {}): Promise<TurnEndReason | 'busy'> {
    if (this.isBusy) return 'busy';
    // A `!command` is the person's own; it is not a prompt for the model, so no prompt hook sees it.
    const command = userCommandOf(text);
    if (command !== null) return this.runCommand(text, command, options.signal);
    // The person's UserPromptSubmit hooks see the prompt first; exit 2 keeps it from the model.
    const hooked = await this.guard?.promptEvents(text);
    for (const event of hooked?.events ?? []) this.emit(event);
    if (hooked?.blocked) return 'error';
    const {abort, release} = this.begin(options.signal);
    this.approvals.reset();
    const mode = this.currentMode;
    let reason: TurnEndReason = 'error';
    try {
      // The undo point comes before the loop may touch a file. Print mode in ask or plan changes nothing.
      if (this.canAsk || mode === 'auto-edit' || mode === 'yolo') await this.store.beforeTurn(mode);
      this.flushNotices();
      // @path attachments and waiting `!command` notes go to the model; the screen and the log's
      // turn-start keep the prompt as typed.
      const sent = await this.extras.prepare(text, this.store.turns + 1, this.context, abort.signal);
      let yieldedAt = this.now();
      for await (const loopEvent of runAgent({
        provider: this.provider,
        tools: this.tools,
        context: this.context,
        history: this.messages,
        prompt: sent,
        mode: () => this.currentMode,
        approve: (request, signal) => this.approvals.wait(request, signal),
        canAsk: this.canAsk,
        alwaysAllowed: this.grants,
        maxRounds: this.maxRounds,
        ...(this.guard ? {guard: this.guard} : {}),
        compaction: this.compaction(),
        signal: abort.signal,
        now: this.now,
      })) {
        const event = loopEvent.type === 'turn-start' ? {...loopEvent, prompt: text} : loopEvent;
        this.emit(stamp(event, this.now));
        // Awaited before the loop is asked for more: the log is on disk before each request.
        await this.store.observe(event, this.messages.length);
        if (event.type === 'approval-decision' && event.decision.kind === 'always') this.emitGrants();
        if (event.type === 'usage' || event.type === 'compaction') this.emit(this.contextEvent());
        if (event.type === 'turn-end') reason = event.reason;
        if (this.now() - yieldedAt >= YIELD_EVERY_MS) {
          await new Promise(resolve => setImmediate(resolve));
          yieldedAt = this.now();
        }
      }
      for (const event of (await this.guard?.stopEvents()) ?? []) this.emit(event);
    } finally {
      release();
      this.flushNotices();
      this.emit(this.contextEvent());
      // A person gets the prompt back at once; the session runs its snapshots in order. Print
      // mode waits, so the process does not exit under a snapshot.
      const after = this.canAsk || mode === 'auto-edit' || mode === 'yolo' ? this.store.afterTurn(mode) : Promise.resolve();
      if (this.canAsk) void after.catch(() => {}); // a failure only costs /undo's edit warning
      else await after.catch(() => {});
      this.setBusy(false);
    }
    return reason;
  }

  /** Answers approval request `id`; an answer that comes before the loop asks is kept for it. */
  answer(id: string, decision: Decision): void {
    this.approvals.answer(id, decision);
  }

  /** Aborts the running turn: its command is killed and every open call answered. */
  interrupt(): void {
    this.running?.abort();
  }

  /** Chosen by name, a mode is a fresh grant: every "always" is taken back. */
  setMode(mode: ApprovalMode): void {
    this.currentMode = mode;
    this.grants.clear();
    this.guard?.forgetSession();
    this.emit({type: 'mode', mode});
    this.emitGrants();
  }

  /** Shift+Tab steps through the modes and keeps the grants. */
  cycleMode(): void {
    this.currentMode = nextMode(this.currentMode);
    this.emit({type: 'mode', mode: this.currentMode});
  }

  /** The next request, and every compaction from now on, use `model`. */
  setModel(model: string): void {
    this.provider = this.connect(model);
    this.emit({type: 'model', model});
  }

  /** /compact: asked for by name, so even a short conversation is summarised (about its last quarter kept). */
  async compact(): Promise<Result<{summarised: number; kept: number}>> {
    return this.exclusive(async () => {
      const tracker = this.store.tracker;
      const keepTokens = Math.min(tracker.keepTokens, Math.floor(tracker.tokens(this.messages) / 4));
      const result = await compactHistory({provider: this.provider, history: this.messages, keepTokens, signal: new AbortController().signal});
      if (!result.ok) return {ok: false, error: result.error.message};
      this.messages.splice(0, this.messages.length, ...result.value.history);
      await this.store.recordCompaction(result.value.history, result.value.summary);
      this.emit(this.contextEvent());
      return {ok: true, value: {summarised: result.value.summarised, kept: result.value.kept}};
    });
  }

  /** A fresh conversation in a new log; the old one stays resumable. Grants and the read ledger go with it. */
  async clear(): Promise<Busy> {
    return this.exclusive(async () => {
      this.messages.splice(1);
      this.grants.clear();
      this.guard?.forgetSession();
      this.context.ledger.clear();
      this.extras.reset(null);
      await this.store.startFresh(this.model);
      this.emit({type: 'cleared'});
      this.emitGrants();
      this.emit(this.contextEvent());
      return {ok: true, value: undefined};
    });
  }

  /** Switches to another session of this workspace by id (or id prefix). */
  async resume(id: string): Promise<Busy> {
    return this.exclusive(async () => {
      const loaded = await loadById(this.store.dir, id);
      if (!loaded.ok) return loaded;
      await this.store.switchTo(loaded.value);
      this.messages.splice(1, this.messages.length, ...loaded.value.history);
      this.grants.clear();
      this.guard?.forgetSession();
      this.context.ledger.clear();
      this.extras.reset(loaded.value);
      this.emit({type: 'cleared'});
      for (const event of replayEvents(loaded.value)) this.emit(event);
      for (const warning of loaded.value.warnings) this.emit({type: 'notice', text: warning});
      this.emit(resumedNotice(loaded.value));
      this.emit(this.contextEvent());
      return {ok: true, value: undefined};
    });
  }

  sessions(): Promise<SessionSummary[]> {
    return listSessions(this.store.dir);
  }

  deleteSession(id: string): Promise<Result<string>> {
    return deleteOther(this.store.dir, id, this.store.log.path);
  }

  planUndo(turn?: number) {
    return this.store.planUndo(turn);
  }

  /** Restores the files to before turn `turn` (the last one by default) and tells the model so. */
  async undo(turn?: number) {
    return this.exclusive(async () => {
      const result = await this.store.undo(turn);
      if (result.ok) this.tellModel(result.value.note);
      return result;
    });
  }

  /** The earlier prompts /rewind can go back to, oldest first. */
  rewindPoints(): RewindPoint[] {
    return this.extras.points(this.messages, this.store.turns, this.store.snapshots);
  }

  /**
   * Goes back to just before turn `turn`: the files (from its snapshot), the conversation (cut at
   * its prompt; what was read since is forgotten), or both. Returns the prompt as typed, for the
   * input box.
   */
  async rewind(turn: number, scope: RewindScope): Promise<Result<{prompt: string}>> {
    return this.exclusive(async () => {
      const point = this.rewindPoints().find(candidate => candidate.turn === turn);
      if (!point) return {ok: false, error: `Turn ${turn} is not in the conversation (it was compacted, or never happened).`};
      const done = await rewindTo(point, scope, {messages: this.messages, store: this.store, context: this.context, extras: this.extras, tellModel: note => this.tellModel(note)});
      if (!done.ok) return done;
      this.emit({type: 'notice', text: done.value});
      this.emit(this.contextEvent());
      return {ok: true, value: {prompt: point.prompt}};
    });
  }

  diff() {
    return this.store.diffSinceStart();
  }

  /** Ends the running turn, flushes the log and ends every MCP server process. */
  async close(): Promise<void> {
    this.interrupt();
    await Promise.all([this.store.close(), this.mcp?.close(), this.guard?.close()]);
  }

  /** `!command`: run as the person typed it (no approval, no model call); its output waits for the next prompt. */
  private async runCommand(text: string, command: string, signal?: AbortSignal): Promise<TurnEndReason> {
    const {abort, release} = this.begin(signal);
    try {
      const emit = (event: SessionEvent) => this.emit(event);
      // The sandbox covers the person's own commands as it covers the model's.
      const wrap = await this.guard?.confinement();
      const context = wrap ? {...this.context, wrap} : this.context;
      const ran = await runUserCommandTurn(text, command, {tools: this.tools, context, signal: abort.signal, emit, id: `command-${++this.commandCount}`, now: this.now});
      this.extras.addNote(ran.note);
      return ran.reason;
    } finally {
      release();
      this.setBusy(false);
    }
  }

  /** Marks the session busy with an abort for interrupt() that also follows `signal`; release() undoes the link. */
  private begin(signal?: AbortSignal): {abort: AbortController; release: () => void} {
    const abort = new AbortController();
    const stop = () => abort.abort();
    signal?.addEventListener('abort', stop, {once: true});
    if (signal?.aborted) abort.abort();
    this.running = abort;
    this.setBusy(true);
    return {
      abort,
      release: () => {
        signal?.removeEventListener('abort', stop);
        this.running = null;
      },
    };
  }

  /** The system message carries what the model must know about the files, without a fake turn. */
  private tellModel(note: string): void {
    const system = this.messages[0];
    if (system?.type === 'system') this.messages[0] = {...system, content: `${system.content}\n\n${note}`};
  }

  /** The provider is read when compaction runs, so a /model switch reaches the summaries too. */
  private compaction(): LoopCompaction {
    const {tracker} = this.store;
    const compact = (history: readonly Message[], signal: AbortSignal) => compactHistory({provider: this.provider, history, keepTokens: tracker.keepTokens, signal});
    return {shouldCompact: history => tracker.shouldCompact(history), compact};
  }

  /** Runs `work` as the only thing the session does; refused while anything else runs. */
  private async exclusive<T>(work: () => Promise<Result<T>>): Promise<Result<T>> {
    if (this.isBusy) return {ok: false, error: BUSY_MESSAGE};
    this.setBusy(true);
    try {
      return await work();
    } finally {
      this.setBusy(false);
    }
  }

  private setBusy(busy: boolean): void {
    this.isBusy = busy;
    this.emit({type: 'busy', busy});
  }

  private emit(event: SessionEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private emitGrants(): void {
    this.emit({type: 'grants', tools: [...this.grants]});
  }

  private flushNotices(): void {
    for (const text of this.store.takeNotices()) this.emit({type: 'notice', text});
  }

  private contextEvent(): SessionEvent {
    return {type: 'context', tokens: this.store.tracker.tokens(this.messages), window: this.store.tracker.settings.window};
  }
}
