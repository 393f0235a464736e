import type {Message, ToolCall} from './messages.js';
import type {Usage} from './events.js';

/** One assistant turn as reassembled from a stream (see accumulate.ts). */
export type AssistantTurn = {
  text: string;
  reasoning: string;
  refusal: string;
  toolCalls: ToolCall[];
  /** The last non-null finish_reason, as sent. */
  finishReason: string | null;
  usage: Usage | null;
  /**
   * Set when the stream carried an error object, was cut off, timed out or was aborted: the turn
   * failed. Partial text is kept for display, but none of `toolCalls` may run.
   */
  error: string | null;
  /** The request was cancelled through its AbortSignal (then `error` is "aborted"). */
  aborted?: boolean;
  /** Chunks that were not JSON and were skipped; a non-zero count is worth a warning, not a failure. */
  malformedChunks?: number;
  /** The server refused the request as longer than its context window (with what it said about sizes). */
  contextRefusal?: ContextRefusal;
};

/** What a "request exceeds the context" refusal said; each field only when the server named it. */
export type ContextRefusal = {
  window?: number;
  promptTokens?: number;
};

/** A tool definition as sent to the model. */
export type ToolDefinition = {
  type: 'function';
  function: {name: string; description: string; parameters: Record<string, unknown>};
};

export type ChatRequest = {
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  signal: AbortSignal;
  /** Called once the server starts answering: work that must not delay the request starts then. */
  onResponse?: () => void;
};

/** What a provider reports while one request streams. Exactly one `done` ends it. */
export type ProviderEvent =
  | {type: 'text-delta'; text: string}
  | {type: 'reasoning-delta'; text: string}
  | {type: 'retry'; attempt: number; delayMs: number; message: string}
  /** Something the person should know that did not fail the request (chunks that could not be read). */
  | {type: 'notice'; text: string}
  /** Always last. `turn.error` is set when the request failed; partial text is kept. */
  | {type: 'done'; turn: AssistantTurn};

export type ChatProvider = {
  readonly model: string;
  readonly baseURL: string;
  stream: (request: ChatRequest) => AsyncGenerator<ProviderEvent>;
  /** Loads what the first request needs ahead of it, in the background (the interactive session). */
  prepare?: () => Promise<void>;
};

/** Streamed text of the answer or of the model's reasoning. */
export type StreamDelta = Extract<ProviderEvent, {type: 'text-delta' | 'reasoning-delta'}>;

/** Adjacent deltas of the same kind as one (a read's worth of a stream, passed on at once). */
export function joinRuns(deltas: readonly StreamDelta[]): StreamDelta[] {
  const out: StreamDelta[] = [];
  for (let start = 0; start < deltas.length; ) {
    const {type} = deltas[start]!;
    let end = start + 1;
    while (end < deltas.length && deltas[end]!.type === type) end++;
    out.push(end - start === 1 ? deltas[start]! : {type, text: deltas.slice(start, end).map(delta => delta.text).join('')});
    start = end;
  }
  return out;
}
