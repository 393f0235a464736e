import type {Usage} from '../core/events.js';
import type {Message} from '../core/messages.js';

/**
 * How full the model's context is. The API's usage is the truth for what was sent; messages
 * appended since the last usage, and everything before the first one, are estimated at four
 * characters a token, which is close enough to decide when to compact.
 */

/** Per-message framing the chat format adds (role, separators). */
const MESSAGE_OVERHEAD = 4;

export function estimateTokens(messages: readonly Message[]): number {
  let chars = 0;
  let digits = 0;
  for (const message of messages) {
    const texts = [message.content ?? ''];
    if (message.type === 'assistant-tool-calls') for (const call of message.toolCalls) texts.push(call.name, call.arguments, call.id);
    for (const text of texts) {
      chars += text.length;
      digits += countDigits(text);
    }
  }
  // Several tokenizers (Qwen, Mistral) give every digit its own token: a log full of numbers runs
  // near two characters a token, and a guess of four would send twice what fits.
  return Math.ceil((chars - digits) / 4 + digits) + messages.length * MESSAGE_OVERHEAD;
}

function countDigits(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 48 && code <= 57) count++;
  }
  return count;
}

/** The last usage the API reported, and how long the history was when it was sent. */
export type UsageMark = {usage: Usage; historyLength: number};

export type ContextSettings = {
  /** Tokens the server holds; null while nothing (config, server, refusal) has said. */
  window: number | null;
  /** 0..1; null turns automatic compaction off. */
  compactAt: number | null;
};

export function shouldCompact(tokens: number, settings: ContextSettings): boolean {
  return settings.compactAt !== null && settings.window !== null && tokens / settings.window > settings.compactAt;
}

/** Room kept for the answer: an eighth of the window, at least 256 and at most 8k tokens. */
export function answerReserve(window: number): number {
  return Math.min(8192, Math.max(256, Math.round(window / 8)));
}

/** Tool definitions as the server counts them: their JSON, at the same four characters a token. */
export function estimateToolTokens(definitions: readonly unknown[]): number {
  return definitions.length === 0 ? 0 : Math.ceil(JSON.stringify(definitions).length / 4);
}

/**
 * One session's view of its context: fed every loop event (and the history length at that
 * moment), asked before each request. Lives with the session, not in a module.
 *
 * Estimates are scaled by how the server's own count compared with ours on the last request
 * (never below 1): code and non-English text run well past four characters a token, and a fit
 * check that guesses low sends a request the server then refuses or, on Ollama, silently cuts.
 */
export class ContextTracker {
  settings: ContextSettings;
  /** Tool definitions sent with every request, estimated; set by the session. */
  toolTokens = 0;
  private mark: UsageMark | null = null;
  private ratio = 1;
  /** System prompt and tools as the server counted them, once a request carried only them and one prompt. */
  private measuredFixed: number | null = null;
  /** Bumped whenever the history may have changed in place (compaction, reset). */
  private version = 0;
  private cached: {length: number; last: Message | undefined; mark: UsageMark | null; version: number; tokens: number} | null = null;

  constructor(settings: ContextSettings) {
    this.settings = settings;
  }

  get window(): number | null {
    return this.settings.window;
  }

  /** `historyLength` is the history's length when the event arrives (usage comes before the answer is appended). */
  observe(event: {type: string; usage?: Usage}, historyLength: number, history?: readonly Message[]): void {
    if (event.type === 'usage' && event.usage) {
      this.mark = {usage: event.usage, historyLength};
      const sent = history ? estimateTokens(history.slice(0, historyLength)) + this.toolTokens : 0;
      if (sent > 0 && event.usage.promptTokens > 0) this.ratio = Math.min(3, Math.max(1, event.usage.promptTokens / sent));
      const sentMessages = history?.slice(0, historyLength) ?? [];
      // A first request (system + one prompt) says what the fixed part costs; the prompt is the only guess in it.
      if (sentMessages.length === 2 && sentMessages[0]?.type === 'system' && sentMessages[1]?.type === 'user') {
        this.measuredFixed = Math.max(0, event.usage.promptTokens - estimateTokens(sentMessages.slice(1)));
      }
    } else if (event.type === 'compaction') this.reset();
  }

  /** The server refused `history` and said how many tokens it counted: estimates scale to that. */
  calibrate(promptTokens: number, history: readonly Message[]): void {
    const sent = estimateTokens(history) + this.toolTokens;
    if (sent > 0) this.ratio = Math.min(3, Math.max(this.ratio, promptTokens / sent));
    this.version++;
  }

  /** The history was replaced outside the loop (/compact, /clear, resume). */
  reset(): void {
    this.mark = null;
    this.version++;
  }

  /** The system prompt changed (the instruction files did): the server's counts so far no longer describe it. */
  systemChanged(): void {
    this.measuredFixed = null;
    this.reset();
  }

  /** A server-side count wins over an estimate: the scale the tracker applies to what it estimates. */
  scale(tokens: number): number {
    return Math.ceil(tokens * this.ratio);
  }

  /**
   * Tokens the next request carries, tool definitions included. Asked on every redraw (the status
   * bar's fill), so the figure is kept until the history or the usage mark changes. Messages are
   * only ever appended or the history shortened (compaction, /clear, undo), so its length and
   * last message tell whether it changed.
   */
  tokens(history: readonly Message[]): number {
    const last = history.at(-1);
    const cached = this.cached;
    if (cached && cached.length === history.length && cached.last === last && cached.mark === this.mark && cached.version === this.version) {
      return cached.tokens;
    }
    const mark = this.mark && this.mark.historyLength <= history.length ? this.mark : null;
    const tokens = mark ? mark.usage.promptTokens + this.scale(estimateTokens(history.slice(mark.historyLength))) : this.estimate(history);
    this.cached = {length: history.length, last, mark: this.mark, version: this.version, tokens};
    return tokens;
  }

  /** The estimate alone, uncached: for candidate histories that differ from the one sent. */
  estimate(history: readonly Message[]): number {
    return this.scale(estimateTokens(history) + this.toolTokens);
  }

  /** System prompt and tool definitions: what every request carries before any conversation. */
  fixedTokens(history: readonly Message[]): number {
    if (this.measuredFixed !== null) return this.measuredFixed;
    const system = history.filter(message => message.type === 'system');
    return this.scale(estimateTokens(system) + this.toolTokens);
  }

  /** Whether the window holds `history` and room for the answer; true while the window is unknown. */
  fits(history: readonly Message[]): boolean {
    const window = this.settings.window;
    return window === null || this.tokens(history) + answerReserve(window) <= window;
  }

  /** Largest request that leaves room for the answer; null while the window is unknown. */
  get budget(): number | null {
    const window = this.settings.window;
    return window === null ? null : window - answerReserve(window);
  }

  shouldCompact(history: readonly Message[]): boolean {
    return !this.fits(history) || shouldCompact(this.tokens(history), this.settings);
  }

  /** Recent tokens a compaction keeps verbatim: a fifth of the window (8k while it is unknown). */
  get keepTokens(): number {
    return this.settings.window === null ? 8_000 : Math.floor(this.settings.window * 0.2);
  }
}
