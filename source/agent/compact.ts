import {estimateTokens} from './context.js';
import type {Message} from '../core/messages.js';
import type {ChatProvider} from '../core/chat.js';
import type {Result} from '../core/result.js';

/**
 * Compaction: the model summarises the older part of the conversation, and the next requests
 * carry that summary plus the recent turns. The cut only falls before a user or assistant
 * message, never between a tool call and its results, so the history stays valid for the API.
 * The session log keeps every original message; only what is sent shrinks.
 */

export const SUMMARY_PREFIX = '[Summary of the earlier conversation, written by nib when it compacted the context]';
/** Between the summary and the first kept prompt when the summary is folded into it (rewind.ts reads it). */
export const SUMMARY_FOLD = '\n\n---\n\n';

export const SUMMARY_SYSTEM = [
  'You summarise a coding session between a user and a coding agent so the agent can continue it without the full transcript.',
  'Keep: the user\'s goals and requests, decisions and their reasons, files read or changed (with paths) and what changed,',
  'commands run and their outcome, errors still open, and what was about to happen next. Drop pleasantries and',
  'content that can be re-read from files. Write plain text or terse Markdown, at most about 400 words.',
].join(' ');

/** Longest text of one message put into the summary request; the middle of longer ones is cut. */
const ENTRY_MAX_CHARS = 2_000;
/** Longest transcript in one summary request when the window is unknown. */
const TRANSCRIPT_MAX_CHARS = 400_000;

export type CompactErrorCode = 'nothing-to-compact' | 'provider' | 'empty-summary';
export type CompactResult =
  | {ok: true; value: {history: Message[]; summary: string; summarised: number; kept: number; shortened?: number}}
  | {ok: false; error: {code: CompactErrorCode; message: string}};

export type CompactOptions = {
  provider: ChatProvider;
  /** The history as sent (a leading system message is kept as is, never summarised). */
  history: readonly Message[];
  /** Recent tokens kept verbatim (at least one turn, or one round, is kept whatever its size). */
  keepTokens: number;
  /** Longest transcript one summary request carries; a longer one is summarised in parts. */
  transcriptMaxChars?: number;
  signal: AbortSignal;
};

/**
 * Where the kept part starts: a valid cut (never a tool result) with at least `keepTokens` after
 * it, at a user message when one allows it (whole turns read better), else at any assistant
 * message. Returns null when nothing before the recent part could be summarised.
 */
export function chooseCut(history: readonly Message[], keepTokens: number): number | null {
  let start = 0;
  while (history[start]?.type === 'system') start++;
  const suffix: number[] = new Array(history.length + 1).fill(0);
  for (let index = history.length - 1; index >= 0; index--) suffix[index] = suffix[index + 1]! + estimateTokens([history[index]!]);

  const pick = (isCut: (message: Message) => boolean): number | null => {
    let best: number | null = null;
    // The latest cut that still keeps keepTokens; a summary of fewer than two messages is no gain.
    for (let index = history.length - 1; index >= start + 2; index--) {
      if (!isCut(history[index]!)) continue;
      best = index;
      if (suffix[index]! >= keepTokens) return index;
    }
    return best;
  };
  return pick(message => message.type === 'user') ?? pick(message => message.type !== 'tool-result' && message.type !== 'system');
}

export async function compactHistory(options: CompactOptions): Promise<CompactResult> {
  const {history} = options;
  const cut = chooseCut(history, options.keepTokens);
  if (cut === null) {
    return {ok: false, error: {code: 'nothing-to-compact', message: 'Nothing to compact yet: the conversation is only the recent turn.'}};
  }
  let start = 0;
  while (history[start]?.type === 'system') start++;
  const older = history.slice(start, cut);
  const kept = history.slice(cut);

  // The summary request must fit the window too: a transcript longer than one request holds is
  // summarised in parts, each part given the summary so far.
  const parts = chunk(older.map(describe), options.transcriptMaxChars ?? TRANSCRIPT_MAX_CHARS);
  let summary = '';
  for (const part of parts) {
    const result = await summarise(options, summaryRequest(part, summary));
    if (!result.ok) return result;
    summary = result.value;
  }

  const head = `${SUMMARY_PREFIX}\n\n${summary}`;
  const first = kept[0];
  // Two user messages in a row trip some chat templates (llama.cpp, older vLLM): fold the summary
  // into the first kept prompt instead.
  const rest: Message[] =
    first?.type === 'user'
      ? [{type: 'user', content: `${head}${SUMMARY_FOLD}${first.content}`}, ...kept.slice(1)]
      : [{type: 'user', content: head}, ...kept];
  return {ok: true, value: {history: [...history.slice(0, start), ...rest], summary, summarised: older.length, kept: kept.length}};
}

async function summarise(options: CompactOptions, messages: Message[]): Promise<Result<string, {code: CompactErrorCode; message: string}>> {
  let summary = '';
  let failure: string | null = null;
  for await (const event of options.provider.stream({messages, tools: [], signal: options.signal})) {
    if (event.type === 'done') {
      summary = event.turn.text.trim();
      failure = event.turn.error;
    }
  }
  if (failure !== null) return {ok: false, error: {code: 'provider', message: `Compaction failed: ${failure}`}};
  if (!summary) return {ok: false, error: {code: 'empty-summary', message: 'Compaction failed: the model returned an empty summary.'}};
  return {ok: true, value: summary};
}

/** Consecutive entries in parts of at most `max` characters; an entry longer than that is clipped to it. */
function chunk(entries: readonly string[], max: number): string[][] {
  const parts: string[][] = [[]];
  let size = 0;
  for (const entry of entries) {
    const text = entry.length > max ? clip(entry, max - 100) : entry;
    if (size + text.length + 2 > max && parts.at(-1)!.length > 0) {
      parts.push([]);
      size = 0;
    }
    parts.at(-1)!.push(text);
    size += text.length + 2;
  }
  return parts;
}

/** The request that asks for the summary: one part of the older messages as a plain transcript. */
function summaryRequest(entries: readonly string[], earlier: string): Message[] {
  const before = earlier ? `The summary of what came before this part:\n<summary>\n${earlier}\n</summary>\n\n` : '';
  return [
    {type: 'system', content: SUMMARY_SYSTEM},
    {
      type: 'user',
      content: `${before}Summarise this conversation so far${earlier ? ', folding in the summary above' : ''}:\n\n<conversation>\n${entries.join('\n\n')}\n</conversation>\n\nWrite the summary now.`,
    },
  ];
}

function describe(message: Message): string {
  switch (message.type) {
    case 'system':
      return `[system]\n${clip(message.content)}`;
    case 'user':
      return `[user]\n${clip(message.content)}`;
    case 'assistant-text':
      return `[assistant]\n${clip(message.content)}`;
    case 'assistant-tool-calls': {
      const calls = message.toolCalls.map(call => `[assistant called ${call.name} (${call.id})] ${clip(call.arguments, 500)}`);
      return [message.content ? `[assistant]\n${clip(message.content)}` : '', ...calls].filter(Boolean).join('\n');
    }
    case 'tool-result':
      return `[${message.isError ? 'tool error' : 'tool result'} (${message.toolCallId})]\n${clip(message.content)}`;
  }
}

export function clip(text: string, max = ENTRY_MAX_CHARS): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[... ${text.length - max} characters cut ...]\n${text.slice(-half)}`;
}
