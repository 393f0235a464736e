import type {AgentEvent} from '../core/events.js';
import {LIMITS} from '../core/limits.js';
import {unansweredToolCalls, type Message} from '../core/messages.js';
import type {AssistantTurn, ChatProvider} from '../core/chat.js';
import {errorMessage} from '../core/result.js';
import {createRepeatWatch, LOOP_STOPPED, loopMessage} from './repeats.js';
import {answer, handleCall, INTERRUPTED, keyArgOf, type CallEnv} from './tool-call.js';
import type {RunAgentOptions} from './loop-types.js';

export type {LoopCompaction, LoopTools, RunAgentOptions} from './loop-types.js';

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
  const callEnv: CallEnv = {
    tools,
    context: options.context,
    mode: options.mode,
    approve: options.approve,
    canAsk: options.canAsk,
    alwaysAllowed: options.alwaysAllowed,
    ...(options.guard ? {guard: options.guard} : {}),
    ...(options.undoPoint ? {undoPoint: options.undoPoint} : {}),
    signal,
    now,
    append,
  };

  yield {type: 'turn-start', prompt: options.prompt, at: now()};
  // A resumed or earlier interrupted history may end with calls that never got an answer;
  // the API rejects the next request unless each has a result.
  for (const call of unansweredToolCalls(history)) {
    yield append({type: 'tool-result', toolCallId: call.id, content: INTERRUPTED, isError: true});
  }
  await options.compaction?.ready?.();
  const refusal = options.compaction?.refuse?.(options.prompt, history);
  if (refusal) {
    yield {type: 'error', code: 'prompt-too-long', message: refusal};
    yield {type: 'turn-end', reason: 'error', at: now()};
    return;
  }
  // The prompt joins the history now but is announced (so logged) only once a request got past the
  // server's length check or a compaction: one refused as too long for the window is taken back.
  const prompted: Message = {type: 'user', content: options.prompt, ...(options.turn ? {turn: options.turn} : {})};
  history.push(prompted);
  let announced = false;
  const announce = function* (): Generator<AgentEvent> {
    if (announced) return;
    announced = true;
    yield {type: 'message', message: prompted};
  };

  const repeats = createRepeatWatch();
  // One overflow retry per turn, and no auto attempt after a failed one: never a loop.
  let overflowRetried = false;
  let autoFailed = false;
  // The turn ends before its prompt was logged (refused, too long, stopped before sending): the
  // prompt is taken back, not kept to be refused again with the next one. Esc or a stop signal
  // makes the end an interruption, whatever else went wrong.
  const endUnsent = function* (error?: Extract<AgentEvent, {type: 'error'}>): Generator<AgentEvent> {
    if (!announced) history.pop();
    if (error && !signal.aborted) yield error;
    yield {type: 'turn-end', reason: signal.aborted ? 'aborted' : 'error', at: now()};
  };
  for (let round = 1; ; round++) {
    if (signal.aborted) return yield* endUnsent();
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
      if (signal.aborted) return yield* endUnsent();
    }
    if (options.compaction?.fits && !options.compaction.fits(history)) {
      // Unless a compaction already carried the prompt into the history.
      return yield* endUnsent({type: 'error', code: 'context-full', message: options.compaction.tooFull?.(history) ?? 'The conversation does not fit the model\'s context window.'});
    }
    yield {type: 'request-start', round, at: now()};
    let turn: AssistantTurn | undefined;
    for await (const event of streamSafely(provider, {
      messages: history,
      tools: tools.definitions({mode: options.mode()}),
      signal,
      // A failed load is reported by the await before the calls run; here it only must not crash.
      onResponse: () => void tools.load?.().catch(() => {}),
    })) {
      if (event.type === 'done') turn = event.turn;
      else yield event;
    }
    turn ??= failedTurn('The provider ended without a result.');
    if (turn.usage) yield {type: 'usage', usage: turn.usage};
    turn = withCutOffError(turn);

    const overflow = turn.error !== null && !signal.aborted && !turn.text && turn.toolCalls.length === 0 ? turn.contextRefusal : undefined;
    if (overflow && options.compaction) {
      options.compaction.learn?.(overflow, history);
      const refused = announced ? null : options.compaction.refuse?.(options.prompt, history.slice(0, -1), true);
      if (refused) return yield* endUnsent({type: 'error', code: 'prompt-too-long', message: refused});
      if (!overflowRetried) {
        overflowRetried = true;
        if (yield* compactNow('overflow')) {
          round--;
          continue;
        }
      }
      // Refused, with nothing left to compact, unless a compaction of this turn carried the prompt in.
      if (!announced) return yield* endUnsent({type: 'error', message: turn.error ?? 'The request failed.', code: 'provider'});
    }
    yield* announce();
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

    await tools.load?.();
    yield append({
      type: 'assistant-tool-calls',
      ...(turn.text ? {content: turn.text} : {}),
      ...reasoningOf(turn),
      toolCalls: turn.toolCalls,
    });
    for (const call of turn.toolCalls) {
      yield {
        type: 'tool-call',
        id: call.id,
        name: call.name,
        arguments: call.arguments,
        keyArg: keyArgOf(tools, call),
        ...(call.source ? {source: call.source} : {}),
      };
    }
    // One at a time, in order: a later call often depends on an earlier one (read, then edit).
    for (const [index, call] of turn.toolCalls.entries()) {
      if (signal.aborted) {
        yield* answer(callEnv, call, {content: INTERRUPTED, isError: true, code: 'interrupted'});
        continue;
      }
      const verdict = yield* repeats.check(callEnv, call);
      if (verdict === 'interrupted') {
        yield* answer(callEnv, call, {content: INTERRUPTED, isError: true, code: 'interrupted'});
        continue;
      }
      if (verdict === 'stop') {
        // Every call of the round gets its answer, so the history stays valid for the next turn.
        for (const rest of turn.toolCalls.slice(index)) yield* answer(callEnv, rest, {content: LOOP_STOPPED, isError: true, code: 'loop'});
        yield {type: 'error', code: 'loop', message: loopMessage(call)};
        yield {type: 'turn-end', reason: 'error', at: now()};
        return;
      }
      yield* handleCall(callEnv, call);
    }
    if (signal.aborted) {
      yield {type: 'turn-end', reason: 'aborted', at: now()};
      return;
    }
  }

  /** Replaces the history in place with its compacted form; false when that failed. */
  async function* compactNow(reason: 'auto' | 'overflow'): AsyncGenerator<AgentEvent, boolean> {
    yield {type: 'compaction-start', reason, at: now()};
    const result = await options.compaction!.compact(history, signal);
    if (!result.ok) {
      // With nothing to compact, the request's own error (or the fit check) says what happened;
      // stopped by Esc, the turn's end says it.
      if (result.error.code !== 'nothing-to-compact' && !signal.aborted) yield {type: 'error', code: 'compaction', message: result.error.message};
      return false;
    }
    history.splice(0, history.length, ...result.value.history);
    // The compacted history holds the prompt: it is logged before the compaction that carries it.
    yield* announce();
    yield {
      type: 'compaction',
      reason,
      summary: result.value.summary,
      summarised: result.value.summarised,
      kept: result.value.kept,
      ...(result.value.shortened ? {shortened: result.value.shortened} : {}),
      history: history.filter(message => message.type !== 'system'),
    };
    return true;
  }

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

