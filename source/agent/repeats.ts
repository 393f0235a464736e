import type {AgentEvent, ApprovalRequest} from '../core/events.js';
import {LIMITS} from '../core/limits.js';
import type {ToolCall} from '../core/messages.js';
import type {CallEnv} from './tool-call.js';
import {untilAborted} from './tool-run.js';

/** What the model is told about the calls a stopped loop left unrun. */
export const LOOP_STOPPED = 'Not run: nib stopped this turn because the same call was made again and again with identical arguments. Try something different, or ask the user.';

export type RepeatVerdict = 'run' | 'stop' | 'interrupted';

/**
 * A model stuck in a loop repeats one call (name and identical arguments) round after round,
 * spending tokens and time on nothing. The watch counts the current run of identical calls in a
 * turn; at the limit, print mode stops the turn, and the TUI asks the person whether to go on.
 */
export function createRepeatWatch() {
  const limit = LIMITS.repeatedCallLimit;
  let last: string | undefined;
  let repeats = 0;

  return {
    /** Sees the next call before it runs; 'stop' ends the turn. */
    async *check(env: CallEnv, call: ToolCall): AsyncGenerator<AgentEvent, RepeatVerdict> {
      const key = `${call.name}\u0000${call.arguments.trim()}`;
      repeats = key === last ? repeats + 1 : 1;
      last = key;
      if (repeats < limit) return 'run';
      if (!env.canAsk) return 'stop';
      const request: ApprovalRequest = {
        // Its own id: the call may still be asked about as a call once the person says go on.
        id: `${call.id}:loop`,
        name: call.name,
        args: call.arguments,
        preview: {title: `${call.name} ${oneLine(call.arguments)}`, outside: false},
        loop: {repeats},
      };
      yield {type: 'approval-request', request, at: env.now()};
      const answered = await untilAborted(env.approve(request, env.signal), env.signal);
      if (!answered.ok) return 'interrupted';
      yield {type: 'approval-decision', id: request.id, decision: answered.value};
      if (answered.value.kind === 'no') return 'stop';
      // Going on starts a new count: the person is asked again if the run goes on as long again.
      repeats = 0;
      last = undefined;
      return 'run';
    },
  };
}

export function loopMessage(call: ToolCall): string {
  return `Stopped: the model called ${call.name} with the same arguments ${LIMITS.repeatedCallLimit} times in a row (a loop). Rephrase the request or give it what it is missing.`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
