import {answerReserve, ContextTracker, estimateTokens, estimateToolTokens} from '../context.js';
import {fitHistory} from '../fit.js';
import type {LoopCompaction} from '../loop.js';
import type {AgentEvent} from '../../core/events.js';
import {within} from '../../core/within.js';
import type {Message} from '../../core/messages.js';
import type {ChatProvider, ContextRefusal, ToolDefinition} from '../../core/chat.js';
import {probeServer, tableWindow, type ProbeOptions, type ServerInfo, type ServerKind} from '../provider/server-info.js';
import {approx, conversationTooFull, exact, ollamaTooSmall, promptTooLong, smallWindow, type WindowFacts} from '../window-text.js';

/**
 * The context window one session runs with, and everything that follows from it: asked from the
 * server once in the background, set by the person (which wins), or learned from a refusal;
 * the loop's fit checks; the notices a small window deserves; /context's breakdown.
 */

export type WindowSource = 'config' | 'server' | 'refusal';

/** The fill the status bar shows: `window` null when unknown (then no percentage). */
export type ContextFill = {tokens: number; window: number | null};

/** What the probe needs from the config: the server, its key, the model. */
export function probeTarget(config: {baseURL: string; apiKey: string | undefined}, model: string): ProbeOptions {
  return {baseURL: config.baseURL, ...(config.apiKey ? {apiKey: config.apiKey} : {}), model};
}

/** How long print mode's first check that the prompt fits waits for the server to say its window. */
export const PROBE_WAIT_MS = 1_500;

/** Working room beyond the system prompt and tools, below which an Ollama window is too small. */
const OLLAMA_MARGIN = 2048;

export class SessionWindow {
  readonly tracker: ContextTracker;
  kind: ServerKind = 'other';
  source: WindowSource | null;
  /** Where the server's figure came from ("llama.cpp /props"), for /context. */
  detail: string | null = null;
  models: string[] | null = null;
  private probing: Promise<ServerInfo | null> | null = null;
  private target: ProbeOptions | null = null;
  private warned = false;
  private checksWaitMs = 0;
  /** Which probe is the current one (a model switch asks again), and which one a refusal came during. */
  private asked = 0;
  private refusedWhileAsking = -1;
  private readonly listeners = new Set<() => void>();
  private readonly notices: string[] = [];
  /** The last probe got no window from a server that was down or still loading, or from Ollama before loading the model: ask again after an answer. */
  private askAfterAnswer = false;
  private askedAgain = 0;

  private readonly configuredFor: (model: string) => number | null;

  constructor(options: {configured: number | null; compactAt: number | null; configuredFor?: (model: string) => number | null}) {
    this.tracker = new ContextTracker({window: options.configured, compactAt: options.compactAt});
    this.source = options.configured === null ? null : 'config';
    this.configuredFor = options.configuredFor ?? (() => options.configured);
  }

  get window(): number | null {
    return this.tracker.window;
  }

  /** Called whenever the window changes (the session emits a `context` event). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Things to say once: a small window, an Ollama window too small to work in. Each is taken once. */
  takeNotices(): string[] {
    return this.notices.splice(0);
  }

  setTools(definitions: readonly ToolDefinition[]): void {
    this.tracker.toolTokens = estimateToolTokens(definitions);
  }

  /**
   * Where the window will be asked, without asking yet (the TUI asks after its first frame, see
   * `start`); a hosted provider's well-known model takes the table's figure at once (the model
   * list may still refine it), so print mode's first request does not wait for the list.
   */
  aim(options: ProbeOptions): void {
    this.target = options;
    const known = this.source === 'config' ? null : tableWindow(options);
    if (known !== null) this.set(known, 'server', 'known model');
  }

  /** Asks the server where `aim` pointed, unless it is being asked already. */
  start(system: readonly Message[]): void {
    if (this.target) void this.ask(this.target, system);
  }

  /**
   * Starts asking the server; `ready()` waits for it. Never throws. Asked once per session, and
   * again after a model switch (`again`): each model has its own window on most local servers.
   */
  probe(options: ProbeOptions, system: readonly Message[], again = false): Promise<ServerInfo | null> {
    if (again) this.probing = null;
    this.aim(options);
    return this.ask(options, system);
  }

  private ask(options: ProbeOptions, system: readonly Message[]): Promise<ServerInfo | null> {
    if (this.probing) return this.probing;
    const asked = ++this.asked;
    this.probing = probeServer(options).then(
      info => {
        // The model was switched meanwhile: the answer for the new one is what counts.
        if (asked !== this.asked) return info;
        this.kind = info.kind;
        this.models = info.models;
        this.adopt(info);
        this.askAfterAnswer = (info.window === null && info.models === null) || info.beforeLoad === true;
        this.warn(system, options.model ?? info.models?.[0] ?? 'the model', info.beforeLoad === true);
        return info;
      },
      () => {
        this.askAfterAnswer = true;
        return null;
      },
    );
    return this.probing;
  }

  /** The server's figure, unless the person set one or the server refused this model since. */
  private adopt(info: ServerInfo): void {
    if (this.source === 'config' || info.window === null) return;
    if (this.source === 'refusal' && this.refusedWhileAsking === this.asked) return;
    if (info.window !== this.window) {
      this.set(info.window, 'server', info.source);
    } else {
      // The same figure (the table's, confirmed): what the session learned since stays; only
      // where the figure comes from changes.
      this.source = 'server';
      this.detail = info.source;
    }
  }

  /**
   * Every event of a turn goes to the tracker. A turn the server answered shows it up and its
   * model loaded: a window the probe could not have then (a 503 while loading, a server not up
   * yet, Ollama before loading the model) is asked again, up to three times a session.
   */
  observe(event: AgentEvent, history: readonly Message[]): void {
    this.tracker.observe(event, history.length, history);
    if (event.type !== 'turn-end' || event.reason !== 'completed' || !this.askAfterAnswer || this.askedAgain >= 3) return;
    this.askAfterAnswer = false;
    this.askedAgain++;
    if (this.target && this.source !== 'config') void this.probe(this.target, history, true);
  }

  /** Another model: the window the person set for it, else the server is asked again for its own. */
  reprobe(model: string, system: readonly Message[]): void {
    const configured = this.configuredFor(model);
    if (configured !== null) this.set(configured, 'config', null);
    else if (this.source === 'config') this.set(null, null, null);
    if (this.target) void this.probe({...this.target, model}, system, true);
  }

  /** A line to say with the window's own notices (print mode says them after the answer). */
  note(text: string): void {
    this.notices.push(text);
  }

  /**
   * Print mode: a turn's checks wait for the probe at most `timeoutMs` (whether the prompt fits
   * depends on the window). The turn starts meanwhile: its hooks run.
   */
  waitBeforeChecks(timeoutMs: number): void {
    this.checksWaitMs = timeoutMs;
  }

  /**
   * Waits for the probe at most `timeoutMs`, and only while the window is unknown: a configured
   * one, a hosted model's from the table or a refusal's needs no answer.
   */
  async ready(timeoutMs: number): Promise<void> {
    if (!this.probing || this.window !== null) return;
    await within(this.probing, timeoutMs);
  }

  /** The server named its window in a refusal: the session runs with it from now on. */
  learn(refusal: ContextRefusal, sent?: readonly Message[]): void {
    if (refusal.promptTokens !== undefined && sent) this.tracker.calibrate(refusal.promptTokens, sent);
    if (refusal.window === undefined || this.source === 'config') return;
    this.set(refusal.window, 'refusal', 'the server refused a request');
    this.refusedWhileAsking = this.asked;
  }

  fill(history: readonly Message[]): ContextFill {
    return {tokens: this.tracker.tokens(history), window: this.window};
  }

  /**
   * The loop's hooks: compact before sending, refuse what cannot fit. The provider is read when
   * compaction runs, so a /model switch reaches the summaries too.
   */
  compaction(provider: () => ChatProvider): LoopCompaction {
    const waitMs = this.checksWaitMs;
    return {
      ...(waitMs > 0 ? {ready: () => this.ready(waitMs)} : {}),
      shouldCompact: history => this.tracker.shouldCompact(history),
      compact: (history, signal) => fitHistory({provider: provider(), history, tracker: this.tracker, signal}),
      refuse: (prompt, history, refused) => {
        const facts = this.facts(history);
        if (!facts) return null;
        const alone = this.tracker.scale(estimateTokens([{type: 'user', content: prompt}]));
        return facts.fixed + alone + answerReserve(facts.window) > facts.window ? promptTooLong(alone, facts, refused) : null;
      },
      fits: history => this.tracker.fits(history),
      tooFull: history => conversationTooFull(this.tracker.tokens(history), this.facts(history)!),
      learn: (refusal, history) => this.learn(refusal, history),
    };
  }

  /** Where the window goes, for /context. */
  describe(history: readonly Message[]): string {
    const fixed = this.tracker.fixedTokens(history);
    const total = this.tracker.tokens(history);
    const conversation = Math.max(0, total - fixed);
    const window = this.window;
    if (window === null) {
      return [
        'Context window: unknown (the server did not say; set contextWindow in the config file or pass --context-window N)',
        `  system prompt and tools  ~${approx(fixed)} tokens`,
        `  conversation             ~${approx(conversation)} tokens`,
      ].join('\n');
    }
    const reserve = answerReserve(window);
    const from = this.source === 'config' ? 'configured' : this.source === 'refusal' ? 'from a refusal' : (this.detail ?? 'from the server');
    const share = (tokens: number) => `${Math.round((tokens / window) * 100)}%`.padStart(4);
    return [
      `Context window: ${exact(window)} tokens (${from})`,
      `  system prompt and tools  ~${approx(fixed).padEnd(6)} ${share(fixed)}`,
      `  conversation             ~${approx(conversation).padEnd(6)} ${share(conversation)}`,
      `  kept for the answer       ${approx(reserve).padEnd(6)} ${share(reserve)}`,
      `  room left                 ${approx(Math.max(0, window - total - reserve)).padEnd(6)} ${share(Math.max(0, window - total - reserve))}`,
    ].join('\n');
  }

  private facts(history: readonly Message[]): WindowFacts | null {
    const window = this.window;
    if (window === null) return null;
    return {window, fixed: this.tracker.fixedTokens(history), kind: this.kind, configured: this.source === 'config'};
  }

  private set(window: number | null, source: WindowSource | null, detail: string | null): void {
    this.tracker.settings = {...this.tracker.settings, window};
    this.source = source;
    this.detail = detail;
    this.tracker.reset();
    for (const listener of this.listeners) listener();
  }

  /** Once per session: nib's own part takes too much of the window. */
  private warn(system: readonly Message[], model: string, beforeLoad: boolean): void {
    const facts = this.facts(system);
    if (this.warned || !facts) return;
    if (facts.kind === 'ollama' && facts.window < facts.fixed + OLLAMA_MARGIN + answerReserve(facts.window)) {
      this.notices.push(ollamaTooSmall(model, facts, beforeLoad));
    } else if (facts.fixed > facts.window / 3) {
      this.notices.push(smallWindow(facts));
    } else return;
    this.warned = true;
    for (const listener of this.listeners) listener();
  }
}
