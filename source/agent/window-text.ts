import type {ServerKind} from './provider/server-info.js';

/**
 * The sentences nib says about the context window. Each names sizes a person can compare and,
 * where the server has a setting for it, the setting that gives a larger window.
 */

/** `4,096`: a window is an exact figure the person set somewhere. */
export function exact(tokens: number): string {
  return tokens.toLocaleString('en-US');
}

/** `7.9k`: an estimate should not look more precise than it is. */
export function approx(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  return `${(tokens / 1000).toFixed(1).replace(/\.0$/, '')}k`;
}

/** A window worth asking for: at least twice this one and what is needed, a power of two. */
function larger(window: number, needed = 0): number {
  let size = 4096;
  while (size < Math.max(window * 2, needed)) size *= 2;
  return size;
}

/** How to give this server a larger window, as one clause; null when nib knows no setting for it. */
export function largerWindowFix(kind: ServerKind, window: number, needed = 0): string | null {
  const size = larger(window, needed);
  switch (kind) {
    case 'llama.cpp':
      return `restart llama-server with a larger --ctx-size (e.g. --ctx-size ${size})`;
    case 'vllm':
      return `restart vLLM with a larger --max-model-len (e.g. --max-model-len ${size})`;
    case 'ollama':
      return `load the model with a larger num_ctx: \`OLLAMA_CONTEXT_LENGTH=${size} ollama serve\`, or a Modelfile with \`PARAMETER num_ctx ${size}\``;
    case 'lmstudio':
      return `raise the model's context length in LM Studio's load settings (or \`lms load MODEL --context-length ${size}\`)`;
    default:
      return null;
  }
}

export type WindowFacts = {
  window: number;
  /** System prompt and tool definitions. */
  fixed: number;
  kind: ServerKind;
  /** The window came from the person's own setting (flag or config file), not the server. */
  configured: boolean;
};

function whose(facts: WindowFacts): string {
  return facts.configured ? 'the configured window' : "the server's window";
}

function fixOrLess(facts: WindowFacts, needed: number): string {
  const fix = facts.configured ? 'raise contextWindow (or --context-window) if the server holds more' : largerWindowFix(facts.kind, facts.window, needed);
  return fix ? `Send less, or ${fix}.` : 'Send less, or use a model with a larger window.';
}

/** A prompt that cannot fit even alone: found before sending, or (`refused`) told by the server's refusal. */
export function promptTooLong(prompt: number, facts: WindowFacts, refused = false): string {
  return (
    `${refused ? 'Refused by the server, and taken back' : 'Not sent'}: this prompt is about ${approx(prompt)} tokens; ${whose(facts)} is ${exact(facts.window)}, ` +
    `and the system prompt and tools take ${approx(facts.fixed)} of it, with room kept for the answer. ${fixOrLess(facts, Math.ceil((prompt + facts.fixed) * 1.5))}`
  );
}

/** A conversation that still does not fit after shortening and summarising. */
export function conversationTooFull(tokens: number, facts: WindowFacts): string {
  return (
    `Not sent: even compacted, the conversation is about ${approx(tokens)} tokens and ${whose(facts)} is ` +
    `${exact(facts.window)} (the system prompt and tools take ${approx(facts.fixed)}). ` +
    `Start over with /clear, or ${facts.configured ? 'raise contextWindow' : (largerWindowFix(facts.kind, facts.window) ?? 'use a model with a larger window')}.`
  );
}

/** Said once at start when nib's own part takes more than about a third of the window. */
export function smallWindow(facts: WindowFacts): string {
  const share = Math.round((facts.fixed / facts.window) * 100);
  const fix = facts.configured ? null : largerWindowFix(facts.kind, facts.window);
  return (
    `The model's window is small: ${exact(facts.window)} tokens, and nib's system prompt and tools take about ` +
    `${approx(facts.fixed)} of it (${share}%). Long files and long conversations will be shortened and summarised often` +
    `${fix ? `; to give it more, ${fix}` : ''}.`
  );
}

/** Ollama cuts an over-long prompt silently from the start; nib says so before that happens. */
export function ollamaTooSmall(model: string, facts: WindowFacts, beforeLoad: boolean): string {
  return (
    `Ollama ${beforeLoad ? 'will load' : 'runs'} ${model} with a window of ${exact(facts.window)} tokens, too small for nib's ` +
    `system prompt and tools (about ${approx(facts.fixed)}) plus room to work, and Ollama drops the start of a longer prompt ` +
    `without an error. Fix: \`OLLAMA_CONTEXT_LENGTH=32768 ollama serve\`, or a Modelfile with \`PARAMETER num_ctx 32768\`.`
  );
}

/** One line for a compaction, in the TUI and print mode alike. */
export function compactionNote(event: {reason: 'auto' | 'overflow' | 'manual'; summarised: number; kept: number; shortened?: number}): string {
  const why = event.reason === 'overflow' ? 'Context too long for the model' : event.reason === 'manual' ? 'Compacted' : 'Context nearly full';
  const done = [
    event.shortened ? `shortened ${event.shortened} long tool output${event.shortened === 1 ? '' : 's'}` : '',
    event.summarised > 0 ? `compacted ${event.summarised} older messages into a summary` : '',
  ].filter(Boolean);
  return `${why}: ${done.join(' and ') || 'nothing to shorten'} (the session log keeps them all).`;
}
