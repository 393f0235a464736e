/**
 * Chat Completions stream chunks in, one assistant turn out. Pure: no I/O, no clock.
 *
 * Written against what providers really send (see the corpus README in ../shared/sse-corpus and
 * test/fixtures/): `null` means absent everywhere; tool calls are put together in
 * tool-call-parts.ts.
 */
import type {ToolCall} from '../../core/messages.js';
import {createSseParser, type SseEvent} from './sse.js';
import {createMarkupFilter} from './text-markup.js';
import {createCallAssembler} from './tool-call-parts.js';
import {contentParts, createPairJoiner, isObject, nonEmpty, toUsage, type Json} from './wire.js';
import type {AssistantTurn, StreamDelta, ToolDefinition} from '../../core/chat.js';

export type Accumulator = {
  /** One SSE event (its data lines); returns the text and reasoning it added, in order. */
  pushEvent: (event: SseEvent) => StreamDelta[];
  /** One parsed chunk object. */
  pushChunk: (chunk: unknown) => StreamDelta[];
  /** End of body: the text held back while it might have been markup. Before `finish`. */
  end: () => StreamDelta[];
  /** Marks the turn failed (cut off, timed out, aborted). The first failure wins; output is kept. */
  fail: (message: string, options?: {aborted?: boolean}) => void;
  /** `data: [DONE]` arrived. */
  readonly sawDone: boolean;
  readonly finishReason: string | null;
  /** The stream carried an error object or `fail` was called. */
  readonly failed: boolean;
  /** The HTTP-like status an error object carried (`"code": 400` from vLLM), when it had one. */
  readonly errorStatus: number | null;
  /** The error object as sent (its `code` and `type` say whether asking again can help), when it was one. */
  readonly errorBody: Record<string, unknown> | null;
  /** Something the model said has arrived; retrying now would repeat it to the person. */
  readonly hasOutput: boolean;
  /** Chunks so far that were not JSON and were skipped. */
  readonly malformedChunks: number;
  /** The last non-null usage object exactly as sent (for tests and debugging). */
  readonly rawUsage: Record<string, unknown> | null;
  finish: () => AssistantTurn;
};

export type AccumulatorOptions = {
  /** Names a call the server sent without an id (some local servers do). */
  makeId?: (position: number) => string;
  /**
   * The tools offered in the request. Given, the content is read for tool-call markup and a
   * leading `<think>` block (text-markup.ts); absent, content is text exactly as sent.
   */
  tools?: readonly ToolDefinition[];
};

export function createAccumulator(options: AccumulatorOptions = {}): Accumulator {
  const makeId = options.makeId ?? ((position: number) => `call_${position}`);
  const text: string[] = [];
  const reasoning: string[] = [];
  const refusal: string[] = [];
  const calls = createCallAssembler();
  let finishReason: string | null = null;
  let usage: Json | null = null;
  let error: string | null = null;
  let errorStatus: number | null = null;
  let errorBody: Json | null = null;
  let aborted = false;
  let sawDone = false;
  let malformed = 0;

  const textPairs = createPairJoiner();
  const reasoningPairs = createPairJoiner();
  const refusalPairs = createPairJoiner();
  const markup = options.tools ? createMarkupFilter(options.tools) : undefined;
  let ended = false;
  const showText = (value: string, out: StreamDelta[]) => {
    if (value === '') return;
    text.push(value);
    out.push({type: 'text-delta', text: value});
  };
  const showReasoning = (value: string, out: StreamDelta[]) => {
    if (value === '') return;
    reasoning.push(value);
    out.push({type: 'reasoning-delta', text: value});
  };
  const addText = (piece: string, out: StreamDelta[]) => {
    const value = textPairs.join(piece);
    if (!markup) return showText(value, out);
    for (const part of markup.push(value)) (part.type === 'text' ? showText : showReasoning)(part.text, out);
  };
  const addReasoning = (piece: string, out: StreamDelta[]) => showReasoning(reasoningPairs.join(piece), out);
  const end = (): StreamDelta[] => {
    const out: StreamDelta[] = [];
    if (ended) return out;
    ended = true;
    // A high surrogate still waiting for its pair never gets one now.
    addText(textPairs.end(), out);
    showReasoning(reasoningPairs.end(), out);
    const refusalRest = refusalPairs.end();
    if (refusalRest !== '') refusal.push(refusalRest);
    if (!markup) return out;
    const {pieces, unclosed} = markup.end();
    for (const part of pieces) (part.type === 'text' ? showText : showReasoning)(part.text, out);
    // An unclosed block before structured calls is the start of one of them, leaked by the
    // server's parser (llama.cpp with Qwen3-Coder); alone, it is what the model said.
    if (calls.count === 0) showText(unclosed, out);
    return out;
  };

  const applyDelta = (delta: Json, out: StreamDelta[]) => {
    const reasoningText =
      typeof delta.reasoning_content === 'string' && delta.reasoning_content !== ''
        ? delta.reasoning_content
        : delta.reasoning;
    // Some servers send both fields with the same text during a rename; one is enough.
    if (typeof reasoningText === 'string') addReasoning(reasoningText, out);
    if (typeof delta.content === 'string') addText(delta.content, out);
    else if (Array.isArray(delta.content)) {
      for (const part of contentParts(delta.content)) (part.type === 'text' ? addText : addReasoning)(part.text, out);
    }
    if (typeof delta.refusal === 'string' && delta.refusal !== '') refusal.push(refusalPairs.join(delta.refusal));
    if (Array.isArray(delta.tool_calls)) for (const fragment of delta.tool_calls) calls.add(fragment);
    // The deprecated single `function_call` is a tool call with neither id nor index.
    if (isObject(delta.function_call)) calls.add({function: delta.function_call});
  };

  const setError = (value: unknown) => {
    if (error !== null) return;
    if (typeof value === 'string') error = value;
    else if (isObject(value)) {
      errorBody = value;
      const message = typeof value.message === 'string' ? value.message : JSON.stringify(value);
      if (typeof value.code === 'number') errorStatus = value.code;
      const kind = (errorStatus === null ? undefined : String(errorStatus)) ?? nonEmpty(value.code) ?? nonEmpty(value.type);
      error = kind ? `${message} (${kind})` : message;
    } else error = JSON.stringify(value);
  };

  const pushChunk = (chunk: unknown): StreamDelta[] => {
    const out: StreamDelta[] = [];
    if (!isObject(chunk)) {
      malformed++;
      return out;
    }
    if (chunk.error !== undefined && chunk.error !== null) setError(chunk.error);
    // vLLM sends its error object bare, as the whole payload: no `error` key, no choices.
    else if (chunk.object === 'error') setError(chunk);
    if (isObject(chunk.usage)) usage = chunk.usage;
    if (!Array.isArray(chunk.choices)) return out;
    for (const choice of chunk.choices) {
      if (!isObject(choice)) continue;
      // nib asks for one choice; anything at another index is not part of this turn.
      if (typeof choice.index === 'number' && choice.index !== 0) continue;
      if (isObject(choice.delta)) applyDelta(choice.delta, out);
      if (nonEmpty(choice.finish_reason) !== undefined) finishReason = choice.finish_reason as string;
    }
    return out;
  };

  const parse = (data: string): {ok: true; value: unknown} | {ok: false} => {
    try {
      return {ok: true, value: JSON.parse(data)};
    } catch {
      return {ok: false};
    }
  };

  const pushData = (data: string, eventName: string | null): StreamDelta[] => {
    const trimmed = data.trim();
    if (trimmed === '') return [];
    if (trimmed === '[DONE]') {
      sawDone = true;
      return [];
    }
    const parsed = parse(trimmed);
    if (!parsed.ok) {
      // An error that is not JSON is still an error: its text is the message.
      if (eventName === 'error') {
        setError(trimmed);
        return [];
      }
      // One bad chunk should not throw away a whole answer; it is counted on the turn instead.
      malformed++;
      return [];
    }
    if (eventName === 'error' && isObject(parsed.value) && parsed.value.error === undefined) {
      setError(parsed.value);
      return [];
    }
    return pushChunk(parsed.value);
  };

  return {
    pushEvent(event) {
      if (event.data.length === 1) return pushData(event.data[0] ?? '', event.event);
      const joined = event.data.join('\n');
      if (parse(joined).ok) return pushData(joined, event.event);
      // Several JSON lines with no blank line between them: each line is its own chunk.
      return event.data.flatMap(line => pushData(line, event.event));
    },
    pushChunk,
    end,
    fail(message, failOptions) {
      if (error === null) error = message;
      if (failOptions?.aborted) aborted = true;
    },
    get sawDone() {
      return sawDone;
    },
    get finishReason() {
      return finishReason;
    },
    get failed() {
      return error !== null;
    },
    get errorStatus() {
      return errorStatus;
    },
    get errorBody() {
      return errorBody;
    },
    get hasOutput() {
      return text.length > 0 || reasoning.length > 0 || refusal.length > 0 || calls.count > 0;
    },
    get malformedChunks() {
      return malformed;
    },
    get rawUsage() {
      return usage;
    },
    finish(): AssistantTurn {
      end();
      let toolCalls: ToolCall[] = calls.finish(makeId);
      const fromText = markup?.calls ?? [];
      let said = text.join('');
      if (toolCalls.length === 0) {
        toolCalls = fromText.map((call, position) => ({id: makeId(position), name: call.name, arguments: call.arguments, source: 'text' as const}));
      } else if (fromText.length > 0) {
        // Structured calls win; markup beside them is kept as what the model said, not run.
        said += fromText.map(call => call.markup).join('');
      }
      return {
        text: said,
        reasoning: reasoning.join(''),
        refusal: refusal.join(''),
        toolCalls,
        finishReason,
        usage: usage === null ? null : toUsage(usage),
        error,
        aborted,
        malformedChunks: malformed,
      };
    },
  };
}

/** A whole SSE body (as text) to one turn; for tests and tools that have the body already. */
export function accumulateSse(body: string, options: AccumulatorOptions = {}): AssistantTurn {
  const accumulator = createAccumulator(options);
  const parser = createSseParser();
  for (const event of parser.feed(body)) accumulator.pushEvent(event);
  for (const event of parser.end()) accumulator.pushEvent(event);
  return accumulator.finish();
}
