/**
 * Values from the wire in the shapes nib keeps: arguments as JSON text, deltas as whole
 * characters, content parts as text and reasoning, usage in our names; and the headers every
 * request puts on it.
 */
import type {Usage} from '../../core/events.js';
import {VERSION} from '../../core/version.js';

export type Json = Record<string, unknown>;

/** A string that says something; '' and anything else count as absent. */
export const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Arguments some servers send as an object, back to the JSON text the wire defines. Nesting deep
 * enough to overflow JSON.stringify's recursion becomes a string the tool rejects as not an
 * object, so the model hears what was wrong instead of the turn failing.
 */
export function argumentsText(args: unknown): string {
  try {
    return JSON.stringify(args);
  } catch {
    return JSON.stringify('arguments nested too deeply to read');
  }
}

// Without the `u` flag a regex sees UTF-16 code units, so it can find halves of pairs.
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Some servers cut text between the two halves of a surrogate pair (an emoji), each half escaped
 * in its own delta. A trailing high half waits for the next piece; whatever cannot pair becomes
 * U+FFFD, a high half still waiting when the stream ends too (`end`), so the text shows that a
 * character was there. No delta, and so no screen, JSONL line or log, ever carries a lone surrogate.
 */
export function createPairJoiner(): {join: (piece: string) => string; end: () => string} {
  let held = '';
  return {
    end() {
      const rest = held === '' ? '' : '\uFFFD';
      held = '';
      return rest;
    },
    join(piece) {
      let value = held + piece;
      held = '';
      const last = value.charCodeAt(value.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        held = value.slice(-1);
        value = value.slice(0, -1);
      }
      return value.replace(loneSurrogate, '\uFFFD');
    },
  };
}

/**
 * Follows argument text as it streams and says whether it is, so far, one complete JSON object or
 * array: brackets balanced outside strings, nothing but whitespace after. One pass over each
 * piece, so a call streamed in thousands of fragments (Mistral repeats the name in every one) is
 * not parsed again for each. Brackets are all it checks; JSON.parse confirms.
 */
export function createJsonEnd(): {push: (text: string) => void; readonly closed: boolean} {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let closed = false;
  let past = false;
  return {
    push(text) {
      for (let at = 0; at < text.length && !past; at++) {
        const code = text.charCodeAt(at);
        if (inString) {
          if (escaped) escaped = false;
          else if (code === 92 /* \ */) escaped = true;
          else if (code === 34 /* " */) inString = false;
        } else if (code === 32 || code === 9 || code === 10 || code === 13) continue;
        else if (closed || (depth === 0 && code !== 123 && code !== 91)) past = true;
        else if (code === 34) inString = true;
        else if (code === 123 /* { */ || code === 91 /* [ */) depth++;
        else if (code === 125 /* } */ || code === 93 /* ] */) closed = --depth === 0;
      }
    },
    get closed() {
      return closed && !past;
    },
  };
}

/** Mistral sends content as typed parts: `text` parts are the answer, `thinking` parts reasoning. */
export function contentParts(parts: unknown[]): Array<{type: 'text' | 'reasoning'; text: string}> {
  const out: Array<{type: 'text' | 'reasoning'; text: string}> = [];
  for (const part of parts) {
    if (typeof part === 'string') out.push({type: 'text', text: part});
    if (!isObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') out.push({type: 'text', text: part.text});
    else if (part.type === 'thinking' || part.type === 'reasoning') {
      const thinking = part.thinking ?? part.text;
      if (typeof thinking === 'string') out.push({type: 'reasoning', text: thinking});
      else if (Array.isArray(thinking)) {
        for (const inner of thinking) {
          if (typeof inner === 'string') out.push({type: 'reasoning', text: inner});
          else if (isObject(inner) && typeof inner.text === 'string') out.push({type: 'reasoning', text: inner.text});
        }
      }
    }
  }
  return out;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Maps wire usage to ours; some servers use the Responses-style input/output names. */
export function toUsage(raw: Json): Usage {
  const promptTokens = count(raw.prompt_tokens) ?? count(raw.input_tokens) ?? 0;
  const completionTokens = count(raw.completion_tokens) ?? count(raw.output_tokens) ?? 0;
  return {promptTokens, completionTokens, totalTokens: count(raw.total_tokens) ?? promptTokens + completionTokens};
}

/** `text` as a JSON object, or null when it is not JSON or not an object. */
export function parseObject(text: string): Json | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * A whole (non-streamed) completion as one stream chunk: each choice's `message` becomes its
 * `delta`, and tool calls get the `index` a stream would give them. An error body passes through
 * as is (the accumulator reports it); anything else is null.
 */
export function completionAsChunk(body: string): Record<string, unknown> | null {
  const record = parseObject(body);
  if (!record) return null;
  if (record.error !== undefined && record.error !== null) return record;
  if (!Array.isArray(record.choices)) return null;
  const choices = record.choices.map((choice: unknown) => {
    if (typeof choice !== 'object' || choice === null) return choice;
    const {message, ...rest} = choice as Record<string, unknown>;
    const delta = typeof message === 'object' && message !== null ? {...(message as Record<string, unknown>)} : {};
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls = delta.tool_calls.map((call: unknown, index) =>
        typeof call === 'object' && call !== null ? {index, ...(call as Record<string, unknown>)} : call,
      );
    }
    return {...rest, delta};
  });
  return {...record, choices};
}

/**
 * What every request sends. `account` is the OpenAI organization and project
 * (OPENAI_ORG_ID / OPENAI_PROJECT_ID, the variables the `openai` SDK reads), when set.
 */
export function requestHeaders(apiKey: string, account: {organization?: string | undefined; project?: string | undefined} = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json',
    authorization: `Bearer ${apiKey}`,
    'user-agent': `nib/${VERSION}`,
    ...(account.organization ? {'openai-organization': account.organization} : {}),
    ...(account.project ? {'openai-project': account.project} : {}),
  };
}
