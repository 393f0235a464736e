/**
 * A server's "the request is longer than my window" refusal, read for what it says about the
 * window. Each server words it its own way:
 *   llama.cpp  {"error":{"type":"exceed_context_size_error","n_prompt_tokens":20029,"n_ctx":4096,...}}
 *   vLLM       "This model's maximum context length is 4096 tokens. However, you requested ..."
 *   OpenAI     {"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 128000 tokens. ..."}}
 *   LM Studio  "Trying to keep the first 5212 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, ..."
 *              (older: "The number of tokens to keep from the initial prompt is greater than the context length", no figure)
 */
import type {ContextRefusal} from '../../core/chat.js';

/** The refusal in an error body (the `error` object or the whole body) and its message, or null for any other error. */
export function readContextRefusal(body: unknown, message: string): ContextRefusal | null {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const typed = record.type === 'exceed_context_size_error' || record.code === 'context_length_exceeded';
  if (!typed && !isContextLengthMessage(message)) return null;
  const refusal: ContextRefusal = {};
  const window =
    integer(record.n_ctx) ??
    numberIn(message, /maximum context length is (\d+)/i) ??
    numberIn(message, /context size \((\d+) tokens\)/i) ??
    numberIn(message, /context length of only (\d+)/i);
  if (window !== undefined) refusal.window = window;
  const prompt =
    integer(record.n_prompt_tokens) ??
    numberIn(message, /request \((\d+) tokens\)/i) ??
    numberIn(message, /(?:your messages resulted in|you requested|request has) (\d+)/i) ??
    numberIn(message, /keep the first (\d+) tokens/i);
  if (prompt !== undefined) refusal.promptTokens = prompt;
  return refusal;
}

/**
 * Whether an error's text says the request was longer than the model's context. Servers word it
 * differently: OpenAI `context_length_exceeded` / "maximum context length", vLLM and llama.cpp
 * "exceeds the context", Anthropic-style "prompt is too long", LM Studio "context overflow".
 */
export function isContextLengthMessage(message: string): boolean {
  return /context[_ ]length|maximum context|context (window|size|overflow)|exceeds? (the )?(available )?context|prompt is too long|too many tokens|reduce the length of the messages/i.test(message);
}

function integer(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function numberIn(text: string, pattern: RegExp): number | undefined {
  const match = pattern.exec(text.replace(/,(?=\d{3}\b)/g, ''));
  return match ? integer(Number(match[1])) : undefined;
}
