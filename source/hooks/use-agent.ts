import {useCallback, useEffect, useRef, useState} from 'react';
import {nextMode, type ApprovalMode} from '../core/approval-mode.js';
import type {AgentEvent, ApprovalRequest, Decision} from '../core/events.js';
import {runAgent} from '../agent/loop.js';
import {coalesceDeltas, initialState, reduce, type UiAction, type UiState} from '../state/reducer.js';
import type {AgentSetup} from '../agent/session/setup.js';
import type {TurnHooks} from './use-workspace-session.js';

export type UseAgentOptions = {
  setup: AgentSetup;
  model: string;
  mode: ApprovalMode;
  maxRounds?: number;
  /** Time source for events that carry none (text and reasoning deltas). */
  now?: () => number;
  /** How long streamed deltas may wait to be drawn together; 80 ms (about 12 updates a second). */
  frameMs?: number;
  /** #5: the session log, context count and snapshots follow each turn through these. */
  hooks?: TurnHooks;
  /** #5: a resumed session's transcript (replayed from its log), folded into the first state. */
  initialEvents?: ReadonlyArray<AgentEvent | UiAction>;
};

export type Agent = {
  state: UiState;
  /** Sends a prompt, or queues it while a turn runs. */
  submit: (prompt: string) => void;
  /** Aborts the running turn at once (Esc, Ctrl+C). */
  interrupt: () => void;
  /** Answers the approval request `id`. */
  decide: (id: string, decision: Decision) => void;
  /** UI actions, and replayed agent events (a resumed transcript, #5). */
  dispatch: (input: AgentEvent | UiAction) => void;
  /** Sets the approval mode for the running turn too, and takes back every "always". */
  setMode: (mode: ApprovalMode) => void;
  cycleMode: () => void;
  /** Starts a fresh conversation: the screen's transcript and the model's history. */
  clear: () => void;
};

type Pending = {id: string; resolve: (decision: Decision) => void};

/**
 * Runs the agent loop for each prompt and folds its events through the reducer. Deltas are
 * batched into one state update per frame; everything else is applied at once. The approval
 * callback parks a resolver per request until the person answers it.
 */
export function useAgent(options: UseAgentOptions): Agent {
  const {setup, maxRounds} = options;
  const now = options.now ?? Date.now;
  const frameMs = options.frameMs ?? 80;
  const {hooks} = options;
  const [state, setState] = useState(() =>
    (options.initialEvents ?? []).reduce(reduce, initialState({model: options.model, mode: options.mode})),
  );
  const stateRef = useRef(state);
  stateRef.current = state;
  const batch = useRef<Array<AgentEvent | UiAction>>([]);
  const timer = useRef<NodeJS.Timeout | undefined>(undefined);
  const controller = useRef<AbortController | undefined>(undefined);
  const pending = useRef<Pending[]>([]);
  // Answers that arrived before the loop asked: the prompt is on screen as soon as the request
  // event is drawn, but the loop calls approve() only after the session log has the event.
  const early = useRef(new Map<string, Decision>());
  const mode = useRef(options.mode);
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
    (input: AgentEvent | UiAction) => {
      batch.current.push(input);
      if (input.type === 'text-delta' || input.type === 'reasoning-delta' || input.type === 'tool-output') {
        timer.current ??= setTimeout(flush, frameMs);
      } else {
        flush();
      }
    },
    [flush, frameMs],
  );

  const approve = useCallback(
    (request: ApprovalRequest, signal: AbortSignal) =>
      new Promise<Decision>(resolve => {
        const answered = early.current.get(request.id);
        if (answered) {
          early.current.delete(request.id);
          resolve(answered);
          return;
        }
        const entry = {id: request.id, resolve};
        pending.current.push(entry);
        signal.addEventListener('abort', () => (pending.current = pending.current.filter(other => other !== entry)), {once: true});
      }),
    [],
  );

  const run = useCallback(
    async (prompt: string) => {
      const abort = new AbortController();
      controller.current = abort;
      early.current.clear();
      // Shown at once, before the loop's own turn-start arrives, so a prompt never seems lost.
      setState(current => ({...current, busy: true}));
      // The person's UserPromptSubmit hooks see the prompt first; exit 2 keeps it from the model.
      const submitted = await setup.guard?.promptSubmitted(prompt);
      for (const warning of submitted?.warnings ?? []) dispatch({type: 'error', code: 'hook', message: warning});
      if (submitted && submitted.blocked !== null) {
        dispatch({type: 'error', code: 'hook', message: `A UserPromptSubmit hook blocked this prompt; it was not sent: ${submitted.blocked}`});
        if (controller.current === abort) controller.current = undefined;
        setState(current => ({...current, busy: false}));
        return;
      }
      try {
        // The undo point is taken before the loop may touch a file.
        await hooks?.beforeTurn(mode.current);
        let yieldedAt = now();
        for await (const event of runAgent({
          ...setup,
          prompt,
          mode: () => mode.current,
          approve,
          canAsk: true,
          ...(maxRounds === undefined ? {} : {maxRounds}),
          signal: abort.signal,
          now,
        })) {
          dispatch(stamp(event, now));
          // Awaited before the loop is asked for more: the log is on disk before each request.
          await hooks?.onEvent(event, setup.history.length);
          // A stream that arrives faster than it is read is consumed in microtasks only, which
          // starves the frame timer: the answer would appear all at once at the end, in one
          // huge update. Stepping out to the event loop once a frame keeps it streaming.
          if (now() - yieldedAt >= frameMs) {
            await new Promise(resolve => setImmediate(resolve));
            yieldedAt = now();
          }
        }
        for (const warning of (await setup.guard?.stopped())?.warnings ?? []) dispatch({type: 'error', code: 'hook', message: warning});
      } catch (error) {
        // runAgent reports failures as events; a throw here is a bug, shown rather than lost.
        dispatch({type: 'error', message: error instanceof Error ? error.message : String(error)});
        dispatch({type: 'turn-end', reason: 'error', at: now()});
      } finally {
        flush();
        // Not awaited: the prompt comes back at once; the session runs its snapshots in order.
        void hooks?.afterTurn(mode.current).catch(() => {}); // a failure only costs /undo's edit warning
        if (controller.current === abort) controller.current = undefined;
        setState(current => ({...current, busy: false}));
      }
    },
    [setup, maxRounds, approve, dispatch, flush, now, frameMs, hooks],
  );

  const submit = useCallback(
    (prompt: string) => {
      if (stateRef.current.busy || controller.current) dispatch({type: 'queue-prompt', text: prompt});
      else void run(prompt);
    },
    [dispatch, run],
  );

  // Prompts typed during a turn go out one by one once it ends.
  useEffect(() => {
    if (state.busy || controller.current || state.queue.length === 0) return;
    const [next] = state.queue;
    setState(current => reduce(current, {type: 'dequeue-prompt'}));
    void run(next!);
  }, [state.busy, state.queue, run]);

  // The elapsed time of a running tool ticks once a second; nothing ticks while a person reads
  // an approval prompt or nothing runs.
  const isTicking = state.live.tools.some(tool => tool.status === 'running') && state.approvals.length === 0;
  useEffect(() => {
    if (!isTicking) return;
    const interval = setInterval(() => dispatch({type: 'tick', at: now()}), 1000);
    return () => clearInterval(interval);
  }, [isTicking, dispatch, now]);

  useEffect(
    () => () => {
      mounted.current = false;
      clearTimeout(timer.current);
      controller.current?.abort();
    },
    [],
  );

  const interrupt = useCallback(() => controller.current?.abort(), []);

  const decide = useCallback((id: string, decision: Decision) => {
    const entry = pending.current.find(candidate => candidate.id === id);
    if (!entry) {
      // Kept for approve(); the first answer counts, as it would have had the loop been waiting.
      if (!early.current.has(id)) early.current.set(id, decision);
      return;
    }
    pending.current = pending.current.filter(candidate => candidate !== entry);
    entry.resolve(decision);
  }, []);

  const setMode = useCallback(
    (next: ApprovalMode) => {
      mode.current = next;
      setup.alwaysAllowed.clear();
      dispatch({type: 'set-mode', mode: next});
    },
    [setup, dispatch],
  );

  const cycleMode = useCallback(() => {
    // Both step the same cycle from the same mode, so two quick presses stay in agreement.
    mode.current = nextMode(mode.current);
    dispatch({type: 'cycle-mode'});
  }, [dispatch]);

  const clear = useCallback(() => {
    // The loop appends to the history in place; a fresh conversation keeps only the system message.
    setup.history.splice(1);
    // A fresh conversation is a fresh grant: "always" answers and what the model has read (the
    // stale-read guard) belonged to the one that is gone.
    setup.alwaysAllowed.clear();
    setup.context.session.reads.clear();
    dispatch({type: 'clear'});
  }, [setup, dispatch]);

  return {state, submit, interrupt, decide, dispatch, setMode, cycleMode, clear};
}

/** Deltas carry no time from the loop; the reducer needs one to say how long reasoning took. */
function stamp(event: AgentEvent, now: () => number): AgentEvent {
  if ((event.type === 'reasoning-delta' || event.type === 'text-delta') && event.at === undefined) return {...event, at: now()};
  return event;
}
