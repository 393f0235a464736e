import type {Usage} from '../core/events.js';
import type {Message} from '../core/messages.js';

/**
 * How full the model's context is. The API's usage is the truth for what was sent; messages
 * appended since the last usage, and everything before the first one, are estimated at four
 * characters a token, which is close enough to decide when to compact.
 */

export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** Per-message framing the chat format adds (role, separators). */
const MESSAGE_OVERHEAD = 4;

export function estimateTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += message.content?.length ?? 0;
    if (message.type === 'assistant-tool-calls') {
      for (const call of message.toolCalls) chars += call.name.length + call.arguments.length + call.id.length;
    }
  }
  return Math.ceil(chars / 4) + messages.length * MESSAGE_OVERHEAD;
}

/** The last usage the API reported, and how long the history was when it was sent. */
export type UsageMark = {usage: Usage; historyLength: number};

/** Tokens the next request will carry (before its new messages are counted by the server). */
export function contextTokens(history: readonly Message[], mark: UsageMark | null): number {
  // A compaction shortens the history below the mark: the usage no longer describes it.
  if (!mark || mark.historyLength > history.length) return estimateTokens(history);
  return mark.usage.promptTokens + estimateTokens(history.slice(mark.historyLength));
}

/** The window of `model`: configured per model, else the default. */
export function contextWindowFor(model: string, windows: Readonly<Record<string, number>> = {}, fallback = DEFAULT_CONTEXT_WINDOW): number {
  return windows[model] ?? fallback;
}

export type ContextSettings = {
  window: number;
  /** 0..1; null turns automatic compaction off. */
  compactAt: number | null;
};

export function shouldCompact(tokens: number, settings: ContextSettings): boolean {
  return settings.compactAt !== null && settings.window > 0 && tokens / settings.window > settings.compactAt;
}

/**
 * Whether a provider error says the request was longer than the model's context. Servers word it
 * differently: OpenAI `context_length_exceeded` / "maximum context length", vLLM and llama.cpp
 * "exceeds the context", Anthropic-style "prompt is too long", LM Studio "context overflow".
 */
export function isContextLengthError(message: string): boolean {
  return /context[_ ]length|maximum context|context (window|size|overflow)|exceeds? (the )?(available )?context|prompt is too long|too many tokens|reduce the length of the messages/i.test(message);
}

/**
 * One session's view of its context: fed every loop event (and the history length at that
 * moment), asked before each request. Lives with the session, not in a module.
 */
export class ContextTracker {
  settings: ContextSettings;
  private mark: UsageMark | null = null;
  private cached: {length: number; last: Message | undefined; mark: UsageMark | null; tokens: number} | null = null;

  constructor(settings: ContextSettings) {
    this.settings = settings;
  }

  /** `historyLength` is the history's length when the event arrives (usage comes before the answer is appended). */
  observe(event: {type: string; usage?: Usage}, historyLength: number): void {
    if (event.type === 'usage' && event.usage) this.mark = {usage: event.usage, historyLength};
    else if (event.type === 'compaction') this.mark = null;
  }

  /** The history was replaced outside the loop (/compact, /clear, resume). */
  reset(): void {
    this.mark = null;
  }

  /**
   * Asked on every redraw (the status bar's fill), so the estimate is kept until the history or
   * the usage mark changes. Messages are only ever appended or the history shortened (compaction,
   * /clear, undo), so its length and last message tell whether it changed.
   */
  tokens(history: readonly Message[]): number {
    const last = history.at(-1);
    const cached = this.cached;
    if (cached && cached.length === history.length && cached.last === last && cached.mark === this.mark) return cached.tokens;
    const tokens = contextTokens(history, this.mark);
    this.cached = {length: history.length, last, mark: this.mark, tokens};
    return tokens;
  }

  shouldCompact(history: readonly Message[]): boolean {
    return shouldCompact(this.tokens(history), this.settings);
  }

  /** Recent tokens a compaction keeps verbatim: a fifth of the window. */
  get keepTokens(): number {
    return Math.floor(this.settings.window * 0.2);
  }
}
