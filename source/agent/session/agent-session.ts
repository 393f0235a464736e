import {nextMode, type ApprovalMode} from '../../core/approval-mode.js';
import type {ChatProvider} from '../../core/chat.js';
import type {Decision, TurnEndReason} from '../../core/events.js';
import type {Message} from '../../core/messages.js';
import type {Result} from '../../core/result.js';
import type {ToolContext} from '../../core/tool.js';
import type {McpControl} from '../mcp/control.js';
import {runAgent, type LoopTools} from '../loop.js';
import type {SessionWindow} from './window.js';
import {deleteOther, listSessions, type SessionSummary} from './saved.js';
import {Approvals} from './approvals.js';
import {resumedNotice, stamp, type AgentSessionInit, type SessionEvent} from './events.js';
import {replayEvents} from './replay.js';
import {SessionCore} from './core.js';
import {compactNow, rewind, rewindPoints, startOver, switchTo, undoTurn, type Conversation} from './conversation.js';
import type {Guard} from '../guard/guard.js';
export type {AgentSessionInit, SessionEvent, SessionListener} from './events.js';
import type {SessionStore} from './store.js';
import {PromptExtras} from './prompt-extras.js';
import type {RewindPoint, RewindScope} from './rewind.js';
import {runUserCommandTurn, userCommandOf} from '../user-command.js';

export type {RewindScope} from './rewind.js';

/** A stream read faster than it arrives never yields to timers; stepping out this often keeps a screen drawing. */
const YIELD_EVERY_MS = 50;

/**
 * One running conversation: the history, the approval mode and grants, the provider and model,
 * the read ledger (in `context`) and what is kept on disk (`store`). Print mode and the TUI both
 * drive it through its methods and see it through subscribe(); nothing else changes its state.
 */
export class AgentSession extends SessionCore {
  readonly root: string;
  readonly tools: LoopTools;
  readonly chooseModel: boolean;
  /** The rules in force, the hooks and the sandbox; /permissions lists and removes rules through it. */
  readonly guard: Guard | undefined;
  readonly mcp: McpControl | undefined;
  private readonly store: SessionStore;
  private readonly startNotices: string[];
  private readonly messages: Message[];
  private readonly context: ToolContext;
  private readonly canAsk: boolean;
  private readonly now: () => number;
  private readonly grants = new Set<string>();
  private readonly approvals = new Approvals();
  private provider: ChatProvider;
  private currentMode: ApprovalMode;
  /** `!command` notes for the next prompt and the typed prompts /rewind offers. */
  private readonly extras: PromptExtras;
  private commandCount = 0;

  constructor(private readonly init: AgentSessionInit) {
    super();
    ({store: this.store, history: this.messages, tools: this.tools, mcp: this.mcp, context: this.context, canAsk: this.canAsk, guard: this.guard} = init);
    this.root = init.context.root;
    this.provider = init.connect(init.model);
    this.currentMode = init.mode;
    this.now = init.now ?? Date.now;
    this.chooseModel = init.chooseModel === true;
    if (this.guard) this.guard.notify = text => this.emit({type: 'notice', text});
    this.startNotices = [...(init.notices ?? [])];
    this.extras = new PromptExtras(init.store.loaded, init.refreshInstructions);
    // The server's window arrives after the first frame (or with a refusal); the status follows.
    this.store.window.onChange(() => {
      this.flushNotices(false);
      this.emit(this.contextEvent());
    });
  }

  /** The context window: its size, where it goes (/context), the server's models (the picker). */
  get window(): SessionWindow {
    return this.store.window;
  }

  /** SessionStart hooks; their warnings join the start notices. */
  async started(source: 'startup' | 'resume'): Promise<void> {
    this.startNotices.push(...((await this.guard?.sessionStart(source))?.warnings ?? []));
  }

  /**
   * Background work the first turn needs (the server's window, undo's snapshot index, Node's
   * http(s) module, the tools); the TUI starts it after its first frame, and loads the modules
   * 1.5 s later: loading holds the event loop, which must not land on the first keys typed.
   */
  warmUp(): void {
    this.store.window.start(this.messages);
    if (this.currentMode !== 'plan') this.store.warmUp();
    setTimeout(() => void Promise.all([this.provider.prepare?.(), this.tools.load?.()]).catch(() => {}), 1500).unref();
  }

  get mode(): ApprovalMode {
    return this.currentMode;
  }
  get model(): string {
    return this.provider.model;
  }
  get history(): readonly Message[] {
    return this.messages;
  }
  /** Where this session's log is written. */
  get logPath(): string {
    return this.store.log.path;
  }

  /** What happened before anyone subscribed: a resumed transcript (print mode, `replay` false, says only what is new) and the start notices. */
  startEvents({replay = true}: {replay?: boolean} = {}): SessionEvent[] {
    const {loaded} = this.store;
    const notices = [...this.store.notices, ...this.startNotices, ...(this.canAsk ? this.store.window.takeNotices() : [])];
    return [...(loaded && replay ? replayEvents(loaded) : []), ...notices.map(text => ({type: 'notice', text}) as const), ...(loaded ? [resumedNotice(loaded)] : []), this.contextEvent()];
  }

  /** One turn to its end. While a turn, compaction, undo or resume runs, a prompt gets 'busy' (the TUI queues it). */
  async prompt(text: string, options: {signal?: AbortSignal} = {}): Promise<TurnEndReason | 'busy'> {
    const held = await this.hold(signal => {
      // A `!command` is the person's own; it is not a prompt for the model, so no prompt hook sees it.
      const command = userCommandOf(text);
      return command === null ? this.turn(text, signal) : this.runCommand(text, command, signal);
    }, options.signal);
    return held ? held.value : 'busy';
  }

  /** One prompt to the model, while the session is held. */
  private async turn(text: string, signal: AbortSignal): Promise<TurnEndReason> {
    // UserPromptSubmit hooks see the prompt first; exit 2 keeps it from the model. Either early end has its turn-end, as every turn.
    const hooked = await this.guard?.promptEvents(text);
    for (const event of hooked?.events ?? []) this.emit(event);
    const early = hooked?.blocked ? 'error' : signal.aborted ? 'aborted' : null;
    if (early) {
      if (early === 'aborted') this.emit({type: 'notice', text: 'Interrupted before the prompt was sent.'});
      this.emit({type: 'turn-end', reason: early, at: this.now()});
      return early;
    }
    this.approvals.reset();
    const mode = this.currentMode;
    let reason: TurnEndReason = 'error';
    const snapshots = this.canAsk || mode === 'auto-edit' || mode === 'yolo';
    const turn = this.store.turns + 1;
    let undoPoint: Promise<void> | undefined;
    // Taken by the first call that can change a file, or the person's hooks; without snapshots (print mode in ask or plan) a call that ran only marks the turn. Its end waits for it.
    const takeUndoPoint = (forHooks = false) => (forHooks && !snapshots ? Promise.resolve() : (undoPoint ??= this.store.beforeTurn(turn, snapshots).catch(() => {})));
    try {
      this.flushNotices(false);
      // @path attachments and waiting `!command` notes go to the model; the screen and log keep the prompt as typed.
      const sent = await this.extras.prepare(text, turn, this.context, signal);
      let yieldedAt = this.now();
      for await (const loopEvent of runAgent({
        turn,
        provider: this.provider,
        tools: this.tools,
        context: this.context,
        history: this.messages,
        prompt: sent,
        mode: () => this.currentMode,
        approve: (request, signal) => this.approvals.wait(request, signal),
        canAsk: this.canAsk,
        alwaysAllowed: this.grants,
        maxRounds: this.init.maxRounds,
        ...(this.guard ? {guard: this.guard} : {}),
        compaction: this.store.window.compaction(() => this.provider),
        undoPoint: takeUndoPoint,
        signal,
        now: this.now,
      })) {
        const event = loopEvent.type === 'turn-start' ? {...loopEvent, prompt: text} : loopEvent;
        this.emit(stamp(event, this.now));
        if (event.type === 'turn-start') for (const line of this.extras.takeTold()) this.guard?.notify(line);
        // Awaited before the loop is asked for more: the log is on disk before each request.
        await this.store.observe(event, this.messages);
        if (event.type === 'approval-decision' && event.decision.kind === 'always') this.emitGrants();
        if (event.type === 'usage' || event.type === 'compaction') this.emit(this.contextEvent());
        if (event.type === 'turn-end') reason = event.reason;
        if (this.now() - yieldedAt >= YIELD_EVERY_MS) {
          await new Promise(resolve => setImmediate(resolve));
          yieldedAt = this.now();
        }
      }
      if (this.guard?.hasHooks('Stop')) await takeUndoPoint(true); // Stop hooks may change files too
      for (const event of (await this.guard?.stopEvents()) ?? []) this.emit(event);
    } finally {
      await undoPoint;
      this.flushNotices(true);
      this.emit(this.contextEvent());
      // A person gets the prompt back at once (snapshots run in order); print mode waits, not to exit under one.
      const after = snapshots && undoPoint && this.store.afterTurn(turn).catch(() => {}); // a failure only costs /undo's edit warning
      if (!this.canAsk) await after;
    }
    return reason;
  }

  /** Answers approval request `id`; an answer that comes before the loop asks is kept for it. */
  answer(id: string, decision: Decision): void {
    this.approvals.answer(id, decision);
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
    this.provider = this.init.connect(model);
    this.store.window.reprobe(model, this.messages);
    this.emit({type: 'model', model});
  }

  /** /compact: asked for by name, so even a short conversation is summarised (about its last quarter kept). Esc stops it. */
  compact(): Promise<Result<{summarised: number; kept: number}>> {
    return this.exclusive(signal => compactNow(this.conversation(), this.provider, signal));
  }

  /** A fresh conversation in a new log; the old one stays resumable. Grants and the read ledger go with it. */
  clear(): Promise<Result<void>> {
    return this.exclusive(() => startOver(this.conversation()));
  }

  /** Switches to another session of this workspace by id (or id prefix). */
  resume(id: string): Promise<Result<void>> {
    return this.exclusive(() => switchTo(this.conversation(), id));
  }

  /** This workspace's saved sessions, newest first; deleteSession never deletes the one in use. */
  sessions(): Promise<SessionSummary[]> {
    return listSessions(this.store.dir);
  }
  deleteSession(id: string): Promise<Result<string>> {
    return deleteOther(this.store.dir, id, this.store.log.path);
  }

  /** What /undo would restore, and the files the person changed since, to ask about first. */
  planUndo(turn?: number) {
    return this.store.planUndo(turn);
  }
  /** Restores the files to before turn `turn` (the last one by default) and tells the model so. */
  undo(turn?: number) {
    return this.exclusive(() => undoTurn(this.conversation(), turn));
  }

  /** The earlier prompts /rewind can go back to, oldest first. */
  rewindPoints(): RewindPoint[] {
    return rewindPoints(this.conversation());
  }

  /** Back to just before turn `turn`: files, conversation or both; the prompt as typed comes back. */
  rewind(turn: number, scope: RewindScope): Promise<Result<{prompt: string}>> {
    return this.exclusive(() => rewind(this.conversation(), turn, scope));
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
  private async runCommand(text: string, command: string, signal: AbortSignal): Promise<TurnEndReason> {
    const ran = await runUserCommandTurn(text, command, {tools: this.tools, context: this.context, guard: this.guard, signal, emit: event => this.emit(event), id: `command-${++this.commandCount}`, now: this.now});
    this.extras.addNote(ran.note);
    return ran.reason;
  }

  private conversation(): Conversation {
    const {messages, grants, guard, context, extras, store, model} = this;
    return {messages, grants, guard, context, extras, store, model, emit: event => this.emit(event), report: () => {
      this.emitGrants();
      this.emit(this.contextEvent());
    }};
  }

  /** What "always" allows for this session (the status bar's): tools granted whole, and the allow rules answered so. */
  private emitGrants(): void {
    this.emit({type: 'grants', tools: [...this.grants], rules: this.guard?.listRules().flatMap(rule => (rule.kind === 'allow' && rule.source === 'session' ? [rule.text] : [])) ?? []});
  }

  /** Print mode says the window's notices after the answer (`final`): a refusal's sentence comes first. */
  private flushNotices(final: boolean): void {
    const window = this.canAsk || final ? this.store.window.takeNotices() : [];
    for (const text of [...this.store.takeNotices(), ...window]) this.emit({type: 'notice', text});
  }

  private contextEvent(): SessionEvent {
    return {type: 'context', tokens: this.store.window.tracker.tokens(this.messages), window: this.store.window.window};
  }
}
