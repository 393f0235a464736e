import {useCallback, useEffect, useRef, useState} from 'react';
import type {AgentSession} from '../agent/session/agent-session.js';
import {coalesceDeltas, initialState, reduce, type UiInput, type UiState} from '../state/reducer.js';

export type UseSessionOptions = {
  /** Time source for the tick that advances a running tool's elapsed time. */
  now?: () => number;
  /** How long streamed deltas may wait to be drawn together; 80 ms (about 12 updates a second). */
  frameMs?: number;
  /** nib is leaving once the turn winds down: queued prompts stay unsent. */
  holdQueue?: boolean;
};

export type SessionView = {
  state: UiState;
  /** Screen actions (notices, overlays) and anything else to fold into the state. */
  dispatch: (input: UiInput) => void;
  /** Sends a prompt, or queues it while the session is busy. */
  submit: (prompt: string) => void;
};

/**
 * Subscribes to the session and folds what it reports through the reducer. Deltas are batched
 * into one state update per frame; everything else is applied at once. Prompts typed while the
 * session is busy wait in the reducer's queue and go out one by one.
 */
export function useSession(session: AgentSession, options: UseSessionOptions = {}): SessionView {
  const now = options.now ?? Date.now;
  const frameMs = options.frameMs ?? 80;
  const [state, setState] = useState(() =>
    session.startEvents().reduce(reduce, initialState({model: session.model, mode: session.mode})),
  );
  const batch = useRef<UiInput[]>([]);
  const timer = useRef<NodeJS.Timeout | undefined>(undefined);
  const mounted = useRef(true);

  const flush = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = undefined;
    const inputs = batch.current;
    if (inputs.length === 0 || !mounted.current) return;
    batch.current = [];
    setState(current => coalesceDeltas(inputs).reduce(reduce, current));
  }, []);

  const dispatch = useCallback(
    (input: UiInput) => {
      batch.current.push(input);
      if (input.type === 'text-delta' || input.type === 'reasoning-delta' || input.type === 'tool-output') {
        timer.current ??= setTimeout(flush, frameMs);
      } else {
        flush();
      }
    },
    [flush, frameMs],
  );

  useEffect(() => session.subscribe(dispatch), [session, dispatch]);

  const submit = useCallback(
    (prompt: string) => {
      // The session's own flag, not the state's: it is set before a re-render could show it.
      if (session.busy) return dispatch({type: 'queue-prompt', text: prompt});
      void session.prompt(prompt).then(reason => {
        if (reason === 'busy') dispatch({type: 'queue-prompt', text: prompt});
      });
    },
    [session, dispatch],
  );

  // Prompts typed during a turn go out one by one once it ends.
  const holdQueue = options.holdQueue === true;
  useEffect(() => {
    if (holdQueue || state.busy || session.busy || state.queue.length === 0) return;
    const [next] = state.queue;
    dispatch({type: 'dequeue-prompt'});
    submit(next!);
  }, [holdQueue, state.busy, state.queue, session, dispatch, submit]);

  // The elapsed time of a running tool or compaction ticks once a second; nothing ticks while a
  // person reads an approval prompt or nothing runs.
  const isTicking = (state.live.compacting !== null || state.live.tools.some(tool => tool.status === 'running')) && state.approvals.length === 0;
  useEffect(() => {
    if (!isTicking) return;
    const interval = setInterval(() => dispatch({type: 'tick', at: now()}), 1000);
    return () => clearInterval(interval);
  }, [isTicking, dispatch, now]);

  useEffect(
    () => () => {
      mounted.current = false;
      clearTimeout(timer.current);
    },
    [],
  );

  return {state, dispatch, submit};
}
