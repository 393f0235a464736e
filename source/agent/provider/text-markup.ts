/**
 * Tool calls and reasoning that local servers leave in `content` when their template parser
 * misses them (Ollama, llama.cpp, LM Studio, vLLM). Streaming and pure: text goes in piece by
 * piece; what is surely answer comes out at once, and anything that may be the start of markup is
 * held back until it is decided, because a delta once shown cannot be taken back.
 *
 * Two call formats are read, each only when it is complete and names a tool nib offered:
 *   Hermes / Qwen2.5:  <tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>
 *   Qwen3-Coder:       <tool_call><function=read><parameter=path>a</parameter></function></tool_call>
 * `<think>…</think>` at the very start of the content is reasoning. Everything else stays text.
 */
import type {ToolDefinition} from '../../core/chat.js';
import {parseObject} from './wire.js';

export type MarkupPiece = {type: 'text' | 'reasoning'; text: string};

export type TextCall = {name: string; arguments: string; markup: string};

export type MarkupFilter = {
  push: (text: string) => MarkupPiece[];
  /** End of content: what was held back, and a call block the stream never closed. */
  end: () => {pieces: MarkupPiece[]; unclosed: string};
  /** The calls found so far, in order. */
  readonly calls: readonly TextCall[];
};

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';
const THINK = '<think>';
const THINK_END = '</think>';
/** A block this long without its closing tag is not a call; it goes out as text. */
const MAX_BLOCK = 1024 * 1024;

type State = 'start' | 'think' | 'lead' | 'text' | 'call';

export function createMarkupFilter(tools: readonly ToolDefinition[]): MarkupFilter {
  const byName = new Map(tools.map(tool => [tool.function.name, tool]));
  const calls: TextCall[] = [];
  let state: State = 'start';
  let pending = '';

  const step = (out: MarkupPiece[]): boolean => {
    switch (state) {
      case 'start': {
        const trimmed = pending.trimStart();
        if (trimmed.startsWith(THINK)) {
          pending = trimmed.slice(THINK.length);
          state = 'think';
          return true;
        }
        if (THINK.startsWith(trimmed)) return false;
        state = 'text';
        return true;
      }
      case 'think': {
        const end = pending.indexOf(THINK_END);
        if (end === -1) {
          const keep = partialSuffix(pending, THINK_END);
          emit(out, 'reasoning', pending.slice(0, pending.length - keep));
          pending = pending.slice(pending.length - keep);
          return false;
        }
        emit(out, 'reasoning', pending.slice(0, end));
        pending = pending.slice(end + THINK_END.length);
        state = 'lead';
        return true;
      }
      case 'lead': {
        // The blank lines between the reasoning and the answer belong to neither.
        pending = pending.trimStart();
        if (pending === '') return false;
        state = 'text';
        return true;
      }
      case 'text': {
        const open = byName.size === 0 ? -1 : pending.indexOf(OPEN);
        if (open === -1) {
          const keep = byName.size === 0 ? 0 : partialSuffix(pending, OPEN);
          emit(out, 'text', pending.slice(0, pending.length - keep));
          pending = pending.slice(pending.length - keep);
          return false;
        }
        emit(out, 'text', pending.slice(0, open));
        pending = pending.slice(open);
        state = 'call';
        return true;
      }
      case 'call': {
        const rest = feedCall(pending, out);
        pending = rest ?? '';
        return rest !== undefined;
      }
    }
  };

  // A call block is kept as parts, and each piece is searched only where the closing tag could
  // newly appear: a long call arrives in thousands of small deltas, and searching (or flattening)
  // the whole block each time would be quadratic.
  let parts: string[] = [];
  let size = 0;
  let carry = '';
  /** Adds text inside a call block; returns what follows the block once it closed. */
  const feedCall = (text: string, out: MarkupPiece[]): string | undefined => {
    const window = carry + text;
    const at = window.indexOf(CLOSE);
    if (at === -1) {
      parts.push(text);
      size += text.length;
      carry = window.slice(-(CLOSE.length - 1));
      if (size <= MAX_BLOCK) return undefined;
      emit(out, 'text', takeBlock());
      state = 'text';
      return '';
    }
    // The tag cannot lie within `carry` alone (it is shorter), so the cut falls inside `text`.
    const cut = at + CLOSE.length - carry.length;
    parts.push(text.slice(0, cut));
    const markup = takeBlock();
    state = 'text';
    const call = parseBlock(markup.slice(OPEN.length, -CLOSE.length), byName);
    if (call) calls.push({...call, markup});
    else emit(out, 'text', markup);
    return text.slice(cut);
  };
  const takeBlock = () => {
    const block = parts.join('');
    parts = [];
    size = 0;
    carry = '';
    return block;
  };

  return {
    push(text) {
      const out: MarkupPiece[] = [];
      if (state === 'call') {
        const rest = feedCall(text, out);
        if (rest === undefined) return out;
        pending = rest;
      } else pending += text;
      while (step(out));
      return out;
    },
    end() {
      const pieces: MarkupPiece[] = [];
      let unclosed = '';
      if (state === 'call') unclosed = takeBlock();
      else if (state === 'think') emit(pieces, 'reasoning', pending);
      else if (state !== 'lead') emit(pieces, 'text', pending);
      pending = '';
      return {pieces, unclosed};
    },
    get calls() {
      return calls;
    },
  };
}

function emit(out: MarkupPiece[], type: MarkupPiece['type'], text: string): void {
  if (text !== '') out.push({type, text});
}

/** Length of the longest end of `text` that is a proper start of `tag` (it may still become the tag). */
function partialSuffix(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}

/** The inside of one `<tool_call>` block as a call to an offered tool, or null to keep it as text. */
function parseBlock(inner: string, byName: ReadonlyMap<string, ToolDefinition>): {name: string; arguments: string} | null {
  const body = inner.trim();
  if (body.startsWith('{')) return parseHermes(body, byName);
  if (body.startsWith('<function=')) return parseQwenCoder(body, byName);
  return null;
}

function parseHermes(body: string, byName: ReadonlyMap<string, ToolDefinition>): {name: string; arguments: string} | null {
  const parsed = parseObject(body);
  if (!parsed) return null;
  const {name, arguments: args, parameters} = parsed;
  if (typeof name !== 'string' || !byName.has(name)) return null;
  const value = args ?? parameters ?? {};
  // The arguments stay text, as on the wire; the tool parses (and may reject) them.
  return {name, arguments: typeof value === 'string' ? value : JSON.stringify(value)};
}

const FUNCTION = /^<function=([^>\s]+)>([\s\S]*)<\/function>$/;
const PARAMETER = /<parameter=([^>\s]+)>([\s\S]*?)<\/parameter>/g;

function parseQwenCoder(body: string, byName: ReadonlyMap<string, ToolDefinition>): {name: string; arguments: string} | null {
  const match = FUNCTION.exec(body);
  const name = match?.[1];
  const tool = name === undefined ? undefined : byName.get(name);
  if (!match || !name || !tool) return null;
  const properties = (tool.function.parameters.properties ?? {}) as Record<string, {type?: unknown}>;
  const args: Record<string, unknown> = {};
  // Anything between parameters other than whitespace means this is not the format.
  if (match[2]!.replace(PARAMETER, '').trim() !== '') return null;
  for (const [, key, raw] of match[2]!.matchAll(PARAMETER)) {
    // The format puts each value on its own lines: one newline after the tag and one before the end are framing.
    const value = raw!.replace(/^\n/, '').replace(/\n$/, '');
    args[key!] = typed(value, properties[key!]?.type);
  }
  return {name, arguments: JSON.stringify(args)};
}

/** Parameter values arrive as text; the tool's schema says which are numbers, booleans or JSON. */
function typed(value: string, type: unknown): unknown {
  if (type === 'integer' || type === 'number') {
    const number = Number(value.trim());
    return value.trim() !== '' && Number.isFinite(number) ? number : value;
  }
  if (type === 'boolean') {
    const word = value.trim().toLowerCase();
    return word === 'true' ? true : word === 'false' ? false : value;
  }
  if (type === 'object' || type === 'array') {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}
