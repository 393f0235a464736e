import {createTwoFilesPatch} from 'diff';
import type {ApprovalMode} from '../core/approval-mode.js';
import {judgeCall} from './approval.js';
import type {AgentEvent, ApprovalRequest, Decision} from '../core/events.js';
import type {CompactResult} from './compact.js';
import {isContextLengthError} from './context.js';
import {LIMITS} from '../core/limits.js';
import {unansweredToolCalls, type Message, type ToolCall} from '../core/messages.js';
import type {AssistantTurn, ChatProvider, ToolDefinition} from '../core/chat.js';
import {isPreview, type Tool, type ToolContext, type ToolPreview, type ToolResult} from '../core/tool.js';
import {errorMessage} from '../core/result.js';

/** The part of the tool registry the loop uses (source/tools/index.ts provides it). */
export type LoopTools = {
  /** What the model is offered this round; plan mode offers read tools only. */
  definitions: (options: {mode: ApprovalMode}) => ToolDefinition[];
  get: (name: string) => Tool | undefined;
  /** Raw JSON string -> validated arguments, or a sentence telling the model what was wrong. */
  parseArgs: (tool: Tool, raw: string) => {ok: true; value: unknown} | {ok: false; error: string};
};

export type RunAgentOptions = {
  provider: ChatProvider;
  tools: LoopTools;
  context: ToolContext;
  /**
   * The conversation so far, system message included. The loop appends to it in place and emits
   * a `message` event for every message it appends, so a session log can mirror it.
   */
  history: Message[];
  prompt: string;
  /** Read before every call: the person may switch modes while a turn runs. */
  mode: () => ApprovalMode;
  /** Asked when a call needs a person. The signal aborts when the turn is interrupted. */
  approve: (request: ApprovalRequest, signal: AbortSignal) => Promise<Decision>;
  /** False in print mode: nobody is there to answer, so calls that would ask are refused. */
  canAsk: boolean;
  /** Tool names the person answered "always" for; the loop adds to it. Lives with the session. */
  alwaysAllowed: Set<string>;
  maxRounds?: number;
  /**
   * Context management (compact.ts, context.ts): asked before every request whether to compact
   * first, and used once per turn when the server says the context is too long, before one retry.
   */
  compaction?: LoopCompaction;
  signal: AbortSignal;
  now?: () => number;
};

export type LoopCompaction = {
  shouldCompact: (history: readonly Message[]) => boolean;
  compact: (history: readonly Message[], signal: AbortSignal) => Promise<CompactResult>;
};

const INTERRUPTED = 'Interrupted by the user before this call ran.';

/**
 * One user turn: model -> tool calls -> approval -> tools -> model, until the model answers with
 * text, the round cap, an abort or a provider failure. Never throws for any of those: each ends
 * with a `turn-end` event, and the history is left valid for the next request (every tool call
 * answered), whatever happened.
 */
export async function* runAgent(options: RunAgentOptions): AsyncGenerator<AgentEvent> {
  const {provider, tools, history, signal} = options;
  const now = options.now ?? Date.now;
  const maxRounds = options.maxRounds ?? LIMITS.maxRounds;

  const append = (message: Message): AgentEvent => {
    history.push(message);
    return {type: 'message', message};
  };

  yield {type: 'turn-start', prompt: options.prompt, at: now()};
  // A resumed or earlier interrupted history may end with calls that never got an answer;
  // the API rejects the next request unless each has a result.
  for (const call of unansweredToolCalls(history)) {
    yield append({type: 'tool-result', toolCallId: call.id, content: INTERRUPTED, isError: true});
  }
  yield append({type: 'user', content: options.prompt});

  // One overflow retry per turn, and no auto attempt after a failed one: never a loop.
  let overflowRetried = false;
  let autoFailed = false;
  for (let round = 1; ; round++) {
    if (signal.aborted) {
      yield {type: 'turn-end', reason: 'aborted', at: now()};
      return;
    }
    if (round > maxRounds) {
      yield {
        type: 'error',
        code: 'max-rounds',
        message: `Stopped after ${maxRounds} model rounds in one turn (the limit; raise it with --max-rounds).`,
      };
      yield {type: 'turn-end', reason: 'max-rounds', at: now()};
      return;
    }

    if (options.compaction && !autoFailed && options.compaction.shouldCompact(history)) {
      autoFailed = !(yield* compactNow('auto'));
    }
    yield {type: 'request-start', round, at: now()};
    let turn: AssistantTurn | undefined;
    for await (const event of streamSafely(provider, {
      messages: history,
      tools: tools.definitions({mode: options.mode()}),
      signal,
    })) {
      if (event.type === 'done') turn = event.turn;
      else yield event;
    }
    turn ??= failedTurn('The provider ended without a result.');
    if (turn.usage) yield {type: 'usage', usage: turn.usage};
    turn = withCutOffError(turn);

    if (
      turn.error !== null && !signal.aborted && options.compaction && !overflowRetried &&
      !turn.text && turn.toolCalls.length === 0 && isContextLengthError(turn.error)
    ) {
      overflowRetried = true;
      if (yield* compactNow('overflow')) {
        round--;
        continue;
      }
    }
    if (turn.error !== null || signal.aborted) {
      // A failed or cut-off turn keeps what was said but runs none of its tool calls: they may be
      // truncated, and nobody approved them.
      if (turn.text) yield append({type: 'assistant-text', content: turn.text, ...reasoningOf(turn)});
      if (signal.aborted) {
        yield {type: 'turn-end', reason: 'aborted', at: now()};
      } else {
        yield {type: 'error', message: turn.error ?? 'The request failed.', code: 'provider'};
        yield {type: 'turn-end', reason: 'error', at: now()};
      }
      return;
    }

    // Tool calls decide whether to go on, not finish_reason: several servers send "stop" (or
    // nothing) with tool calls.
    if (turn.toolCalls.length === 0) {
      // A refusal arrives in its own field and was never streamed as text; show it like an answer.
      if (!turn.text && turn.refusal) yield {type: 'text-delta', text: turn.refusal, at: now()};
      const text = turn.text || turn.refusal;
      if (text) yield append({type: 'assistant-text', content: text, ...reasoningOf(turn)});
      yield {type: 'turn-end', reason: 'completed', at: now()};
      return;
    }

    yield append({
      type: 'assistant-tool-calls',
      ...(turn.text ? {content: turn.text} : {}),
      ...reasoningOf(turn),
      toolCalls: turn.toolCalls,
    });
    for (const call of turn.toolCalls) {
      yield {type: 'tool-call', id: call.id, name: call.name, arguments: call.arguments};
    }
    // One at a time, in order: a later call often depends on an earlier one (read, then edit).
    for (const call of turn.toolCalls) {
      if (signal.aborted) {
        yield* answer(call, {content: INTERRUPTED, isError: true, code: 'interrupted'});
        continue;
      }
      yield* handleCall(call);
    }
    if (signal.aborted) {
      yield {type: 'turn-end', reason: 'aborted', at: now()};
      return;
    }
  }

  /** Replaces the history in place with its compacted form; false when that failed. */
  async function* compactNow(reason: 'auto' | 'overflow'): AsyncGenerator<AgentEvent, boolean> {
    const result = await options.compaction!.compact(history, signal);
    if (!result.ok) {
      if (result.error.code !== 'nothing-to-compact' || reason === 'overflow') {
        yield {type: 'error', code: 'compaction', message: result.error.message};
      }
      return false;
    }
    history.splice(0, history.length, ...result.value.history);
    yield {
      type: 'compaction',
      reason,
      summary: result.value.summary,
      summarised: result.value.summarised,
      kept: result.value.kept,
      history: history.filter(message => message.type !== 'system'),
    };
    return true;
  }

  function* answer(call: ToolCall, answered: ToolResult): Generator<AgentEvent> {
    const redact = options.context.redact;
    const result = redact ? {...answered, content: redact(answered.content)} : answered;
    yield append({
      type: 'tool-result',
      toolCallId: call.id,
      content: result.content,
      ...(result.isError ? {isError: true} : {}),
    });
    yield {
      type: 'tool-result',
      id: call.id,
      name: call.name,
      isError: result.isError,
      content: result.content,
      ...(result.detail ? {detail: result.detail} : {}),
      at: now(),
    };
  }

  async function* handleCall(call: ToolCall): AsyncGenerator<AgentEvent> {
    const tool = tools.get(call.name);
    if (!tool) {
      const offered = tools.definitions({mode: options.mode()}).map(d => d.function.name);
      yield* answer(call, {
        isError: true,
        code: 'unknown-tool',
        content: `There is no tool named "${call.name}". Available tools: ${offered.join(', ') || 'none'}.`,
      });
      return;
    }
    const parsed = tools.parseArgs(tool, call.arguments);
    if (!parsed.ok) {
      yield* answer(call, {isError: true, code: 'invalid-arguments', content: parsed.error});
      return;
    }
    const args = parsed.value;
    const ctx = options.context;

    const mode = options.mode();
    // Fail closed: when nib cannot tell where a call reaches, it is treated as outside.
    const outside = await guard(() => tool.isOutside(args, ctx), true);
    const verdict = judgeCall({
      kind: tool.kind,
      mode,
      outside,
      alwaysAllowed: options.alwaysAllowed.has(tool.name),
      canAsk: options.canAsk,
    });
    if (verdict === 'refuse') {
      yield* answer(call, {isError: true, code: 'refused', content: refusal(tool, mode, outside, options.canAsk)});
      return;
    }

    let decision: Decision = {kind: 'yes'};
    let preview: ToolPreview | undefined;
    if (verdict === 'ask') {
      const previewed = await guard(() => tool.preview(args, ctx), undefined);
      if (previewed === undefined) {
        yield* answer(call, {isError: true, code: 'preview-failed', content: `${tool.name} could not prepare this call.`});
        return;
      }
      // A call that cannot even be previewed (edit text not found, file not read yet) fails the
      // same way running it would; no point asking the person about it.
      if (!isPreview(previewed)) {
        yield* answer(call, previewed);
        return;
      }
      preview = previewed;
      const request: ApprovalRequest = {id: call.id, name: tool.name, args, preview};
      yield {type: 'approval-request', request, at: now()};
      const answered = await untilAborted(options.approve(request, signal), signal);
      if (!answered.ok) {
        yield* answer(call, {isError: true, code: 'interrupted', content: INTERRUPTED});
        return;
      }
      decision = answered.value;
      yield {type: 'approval-decision', id: call.id, decision};
    }

    if (decision.kind === 'no') {
      const reason = decision.feedback?.trim();
      yield* answer(call, {
        isError: true,
        code: 'denied',
        content: reason
          ? `The user declined this ${tool.name} call and said: ${reason}`
          : `The user declined this ${tool.name} call. Do not retry it unchanged; ask what they want instead.`,
      });
      return;
    }
    if (decision.kind === 'always') options.alwaysAllowed.add(tool.name);
    if (decision.kind === 'edit' && !tool.runEdited) {
      yield* answer(call, {isError: true, code: 'not-editable', content: `${tool.name} calls cannot be edited.`});
      return;
    }

    // An interrupt that landed while the call was being checked or approved: most tools (write,
    // edit) do not watch the signal, so this is the last point where "not run" is still true.
    if (signal.aborted) {
      yield* answer(call, {isError: true, code: 'interrupted', content: INTERRUPTED});
      return;
    }
    yield {type: 'tool-start', id: call.id, name: tool.name, at: now()};
    const output = new OutputQueue();
    const runCtx: ToolContext = {...ctx, onOutput: chunk => output.push(chunk)};
    const running = (async (): Promise<ToolResult> => {
      try {
        return decision.kind === 'edit'
          ? await tool.runEdited!(args, decision.text, runCtx, signal)
          : await tool.run(args, runCtx, signal);
      } catch (error) {
        // A throwing tool is a bug in nib; the model still gets an answer it can work with.
        return {isError: true, code: 'tool-crashed', content: `${tool.name} failed unexpectedly: ${errorMessage(error)}`};
      }
    })();
    for await (const chunk of output.drain(running)) {
      yield {type: 'tool-output', id: call.id, chunk: ctx.redact ? ctx.redact(chunk) : chunk};
    }
    let result = await running;

    if (decision.kind === 'edit') result = withEditNote(result, preview, decision);
    if (signal.aborted) {
      result = {...result, isError: true, content: `Interrupted by the user while running.\n${result.content}`};
    }
    yield* answer(call, result);
  }
}

/** What the model is told when a call is refused without asking, so it can change course. */
function refusal(tool: Tool, mode: ApprovalMode, outside: boolean, canAsk: boolean): string {
  if (mode === 'plan') {
    return `nib is in plan mode: only read tools run. ${tool.name} was not run; describe the change instead.`;
  }
  if (outside) {
    return `${tool.name} was not run: it reaches outside the workspace, and there is nobody to approve that in this non-interactive run.`;
  }
  if (!canAsk) {
    const flag = tool.kind === 'write' ? 'auto-edit or yolo' : 'yolo';
    return `${tool.name} was not run: non-interactive runs in approval mode "${mode}" refuse ${tool.kind} tools (the user can allow them with --approval-mode ${flag}). Tell the user what you would have done instead.`;
  }
  return `${tool.name} was not run: not allowed in approval mode "${mode}".`;
}

/** Tells the model the person changed its proposal, and exactly how. */
function withEditNote(result: ToolResult, preview: ToolPreview | undefined, decision: {text: string; note?: string}): ToolResult {
  const proposed = preview?.editable ?? '';
  const name = preview?.file?.path ?? (preview?.command ? 'command' : 'proposal');
  const patch = createTwoFilesPatch(name, name, ensureNewline(proposed), ensureNewline(decision.text), 'your proposal', 'what ran');
  const lines = [
    'The user edited your proposal before it ran. Their change (your proposal -> what ran):',
    patch.trimEnd(),
  ];
  if (decision.note) lines.push(`Note from the user: ${decision.note}`);
  lines.push('', 'Result:', result.content);
  return {...result, content: lines.join('\n')};
}

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

function reasoningOf(turn: AssistantTurn): {reasoning?: string} {
  return turn.reasoning ? {reasoning: turn.reasoning} : {};
}

/**
 * A turn the server stopped before the model finished is cut off, whatever else it says: the
 * answer is incomplete and the last tool call's arguments may be truncated. It is failed like a
 * dropped stream (text kept, no call run) rather than passed off as a finished answer.
 */
function withCutOffError(turn: AssistantTurn): AssistantTurn {
  if (turn.error !== null) return turn;
  if (turn.finishReason === 'length') {
    return {...turn, error: 'The answer was cut off: the model reached its output token limit (finish_reason "length"). Ask for a shorter answer or fewer changes at once.'};
  }
  if (turn.finishReason === 'content_filter') {
    return {...turn, error: "The answer was stopped by the provider's content filter (finish_reason \"content_filter\")."};
  }
  return turn;
}

function failedTurn(error: string): AssistantTurn {
  return {text: '', reasoning: '', refusal: '', toolCalls: [], finishReason: null, usage: null, error};
}

/** Providers report failure in `done`; this keeps a contract breach from escaping the loop. */
async function* streamSafely(provider: ChatProvider, request: Parameters<ChatProvider['stream']>[0]) {
  try {
    yield* provider.stream(request);
  } catch (error) {
    yield {type: 'done' as const, turn: failedTurn(errorMessage(error))};
  }
}

/** Runs a tool step; a throw (a tool bug) becomes `fallback` instead of ending the turn. */
async function guard<T>(step: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await step();
  } catch {
    // A throwing tool is a bug in nib, not something the model or the person can act on; the
    // caller turns the fallback into a result the model sees.
    return fallback;
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<{ok: true; value: T} | {ok: false}> {
  if (signal.aborted) return Promise.resolve({ok: false});
  return new Promise(resolve => {
    const onAbort = () => resolve({ok: false});
    signal.addEventListener('abort', onAbort, {once: true});
    promise.then(
      value => {
        signal.removeEventListener('abort', onAbort);
        resolve({ok: true, value});
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve({ok: false});
      },
    );
  });
}

/**
 * Tool output arrives through a callback while `run` is pending; the generator can only yield
 * from its own body, so chunks wait here until it pulls them.
 */
class OutputQueue {
  private chunks: string[] = [];
  private wake: (() => void) | undefined;

  push(chunk: string): void {
    this.chunks.push(chunk);
    this.wake?.();
  }

  async *drain(done: Promise<unknown>): AsyncGenerator<string> {
    let finished = false;
    const finish = () => {
      finished = true;
      this.wake?.();
    };
    done.then(finish, finish);
    while (true) {
      while (this.chunks.length > 0) yield this.chunks.shift()!;
      if (finished) return;
      await new Promise<void>(resolve => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
