import {useCallback, useEffect, useMemo, useState, type ReactElement} from 'react';
import type {ApprovalMode} from '../core/approval-mode.js';
import type {AgentEvent} from '../core/events.js';
import {INIT_PROMPT} from '../agent/session/instructions.js';
import type {UiAction} from '../state/reducer.js';
import {deleteSession, findSession, listSessions, loadSession, type LoadedSession, type SessionSummary} from '../agent/session/log.js';
import type {AgentSetup} from '../agent/session/setup.js';
import type {WorkspaceChange} from '../agent/session/snapshots.js';
import {formatSessionList, replayEvents, type WorkspaceSession} from '../agent/session/workspace.js';
import {SessionPicker} from '../components/SessionPicker.js';
import {UndoConfirm} from '../components/UndoConfirm.js';

/** What the session slash commands do; slash-commands.ts calls these. */
export type SessionActions = {
  undo: (arg: string) => Promise<void>;
  diff: () => Promise<void>;
  resume: (arg: string) => Promise<void>;
  sessions: (arg: string) => Promise<void>;
  compact: () => Promise<void>;
  init: () => void;
  /** /clear: a new session log for the fresh conversation. */
  clear: () => Promise<void>;
};

/** What useAgent calls around each turn so the log, the context count and the snapshots follow. */
export type TurnHooks = {
  beforeTurn: (mode: ApprovalMode) => Promise<void>;
  onEvent: (event: AgentEvent, historyLength: number) => Promise<void>;
  afterTurn: (mode: ApprovalMode) => Promise<void>;
};

type Overlay =
  | {kind: 'picker'; sessions: SessionSummary[]; cancelLabel: string}
  | {kind: 'undo'; turn: number | undefined; label: number; changes: WorkspaceChange[]; conflicts: string[]};

/** The parts of useAgent's result this hook uses; read through a ref, since useAgent needs our hooks first. */
export type AgentHandle = {
  state: {busy: boolean};
  dispatch: (input: AgentEvent | UiAction) => void;
  submit: (prompt: string) => void;
};

export type UseWorkspaceSessionOptions = {
  session: WorkspaceSession | null;
  setup: AgentSetup;
  agent: {readonly current: AgentHandle | null};
  model: string;
  /** Open the picker at once (`nib --resume` with no id). */
  openPicker?: boolean;
  rows: number;
  width: number;
};

function resumedNotice(loaded: LoadedSession): UiAction {
  return {type: 'notice', text: `Resumed session ${loaded.header.id} (${loaded.turns} turns).`};
}

/**
 * The #5 side of the interactive session: the turn hooks for useAgent, the slash command
 * actions, and the overlay (session picker, undo question) shown in place of the prompt.
 */
export function useWorkspaceSession(options: UseWorkspaceSessionOptions) {
  const {session, setup, agent} = options;
  const [overlay, setOverlay] = useState<Overlay | null>(null);
  const dispatch = useCallback((input: AgentEvent | UiAction) => agent.current?.dispatch(input), [agent]);
  const submit = useCallback((prompt: string) => agent.current?.submit(prompt), [agent]);
  const busy = useMemo(() => ({get current() {
    return agent.current?.state.busy ?? false;
  }}), [agent]);
  // The resumed transcript and the start notices, for useAgent's first state.
  const [initialEvents] = useState<Array<AgentEvent | UiAction>>(() => [
    ...(session?.loaded ? replayEvents(session.loaded) : []),
    ...[...(session?.notices ?? []), ...(setup.notices ?? [])].map(text => ({type: 'notice', text}) as const),
    ...(session?.loaded ? [resumedNotice(session.loaded)] : []),
  ]);
  const note = useCallback((text: string) => dispatch({type: 'notice', text}), [dispatch]);

  const hooks = useMemo<TurnHooks | undefined>(() => {
    if (!session) return undefined;
    return {
      beforeTurn: async mode => {
        await session.beforeTurn(mode);
        for (const problem of session.takeNotices()) note(problem);
      },
      onEvent: async (event, historyLength) => {
        await session.observe(event, historyLength);
        if (event.type === 'compaction') {
          note(`Context ${event.reason === 'overflow' ? 'too long for the model' : 'nearly full'}: compacted ${event.summarised} older messages into a summary (the session log keeps them all).`);
        }
        if (event.type === 'turn-end') for (const problem of session.takeNotices()) note(problem);
      },
      afterTurn: mode => session.afterTurn(mode),
    };
  }, [session, note]);

  const switchTo = useCallback(
    async (path: string) => {
      if (!session) return;
      const loaded = await loadSession(path);
      if (!loaded.ok) return note(loaded.error.message);
      await session.switchTo(loaded.value);
      setup.history.splice(1, setup.history.length, ...loaded.value.history);
      dispatch({type: 'clear'});
      for (const event of replayEvents(loaded.value)) dispatch(event);
      for (const warning of loaded.value.warnings) note(warning);
      dispatch(resumedNotice(loaded.value));
    },
    [session, setup, dispatch, note],
  );

  // `nib --resume` with no id: the picker is the first thing on screen.
  const [pickerRequested] = useState(() => options.openPicker === true);
  useEffect(() => {
    if (!pickerRequested || !session) return;
    let isCurrent = true;
    void listSessions(session.dir).then(sessions => {
      if (isCurrent) setOverlay({kind: 'picker', sessions, cancelLabel: 'new session'});
    });
    return () => {
      isCurrent = false;
    };
  }, [pickerRequested, session]);

  const actions = useMemo<SessionActions>(() => {
    const unavailable = () => note('Sessions are off for this run.');
    const idle = () => {
      if (!busy.current) return true;
      note('Wait for the turn to finish (or press esc) first.');
      return false;
    };
    return {
      undo: async arg => {
        if (!session) return unavailable();
        if (!idle()) return;
        const turn = arg ? Number(arg) : undefined;
        if (turn !== undefined && (!Number.isInteger(turn) || turn < 1)) return note('Usage: /undo, or /undo N to go back to before turn N.');
        const plan = await session.planUndo(turn);
        if (!plan.ok) return note(plan.error);
        if (plan.value.changes.length === 0) return note(`Nothing to undo: the files are as they were before turn ${plan.value.turn}.`);
        setOverlay({kind: 'undo', turn, label: plan.value.turn, changes: plan.value.changes, conflicts: plan.value.conflicts});
      },
      diff: async () => {
        if (!session) return unavailable();
        const diff = await session.diffSinceStart();
        if (!diff.ok) return note(diff.error);
        if (diff.value.length === 0) return note('No changes in this session.');
        note(`Changed in this session (${diff.value.length} file${diff.value.length === 1 ? '' : 's'}):\n${diff.value.map(change => change.patch.trimEnd() || `${change.status} ${change.path}`).join('\n')}`);
      },
      resume: async arg => {
        if (!session) return unavailable();
        if (!idle()) return;
        if (arg) {
          const found = await findSession(session.dir, arg);
          return found.ok ? switchTo(found.value) : note(found.error.message);
        }
        setOverlay({kind: 'picker', sessions: await listSessions(session.dir), cancelLabel: 'back to this session'});
      },
      sessions: async arg => {
        if (!session) return unavailable();
        const [verb, id] = arg.split(/\s+/);
        if (verb === 'delete' || verb === 'rm') {
          if (!id) return note('Usage: /sessions delete ID');
          const found = await findSession(session.dir, id);
          if (found.ok && found.value === session.log.path) return note('That is the session you are in; resume another one first.');
          const deleted = await deleteSession(session.dir, id);
          return note(deleted.ok ? `Deleted ${deleted.value}.` : deleted.error.message);
        }
        const lines = formatSessionList(await listSessions(session.dir), options.width);
        note(lines.length > 0 ? `Sessions in this workspace (newest first; /resume ID, /sessions delete ID):\n${lines.join('\n')}` : 'No sessions yet.');
      },
      compact: async () => {
        if (!session) return unavailable();
        if (!idle()) return;
        note('Compacting: the model summarises the older turns…');
        const result = await session.compactNow(setup.provider, setup.history, new AbortController().signal);
        if (!result.ok) return note(result.error.message);
        setup.history.splice(0, setup.history.length, ...result.value.history);
        note(`Compacted: ${result.value.summarised} messages summarised, ${result.value.kept} kept. The session log keeps them all.`);
      },
      init: () => submit(INIT_PROMPT),
      clear: async () => {
        await session?.startFresh(options.model);
      },
    };
  }, [session, setup, note, submit, switchTo, options.width, options.model, busy]);

  const answerUndo = useCallback(
    async (yes: boolean, current: Extract<Overlay, {kind: 'undo'}>) => {
      setOverlay(null);
      if (!yes || !session) return note('Undo cancelled; nothing changed.');
      const result = await session.undo(current.turn);
      if (!result.ok) return note(result.error);
      const undoNote = session.takeUndoNote();
      const system = setup.history[0];
      // The model must know its changes are gone; the system message carries it without a fake turn.
      if (undoNote && system?.type === 'system') setup.history[0] = {...system, content: `${system.content}\n\n${undoNote}`};
      note(`Undid turn ${result.value.turn}: ${result.value.restored.length} file(s) restored, ${result.value.deleted.length} deleted.`);
    },
    [session, setup, note],
  );

  let element: ReactElement | null = null;
  if (overlay?.kind === 'picker') {
    element = (
      <SessionPicker
        sessions={overlay.sessions}
        rows={Math.max(4, options.rows - 4)}
        width={options.width}
        onCancel={() => setOverlay(null)}
        cancelLabel={overlay.cancelLabel}
        onPick={picked => {
          setOverlay(null);
          void switchTo(picked.path);
        }}
      />
    );
  } else if (overlay?.kind === 'undo') {
    const current = overlay;
    element = (
      <UndoConfirm
        title={`Undo turn ${current.label}${current.turn === undefined ? '' : ' and later'}`}
        changes={current.changes}
        conflicts={current.conflicts}
        rows={Math.max(6, options.rows - 4)}
        width={options.width}
        onAnswer={yes => void answerUndo(yes, current)}
      />
    );
  }
  return {hooks, actions, overlay: element, initialEvents};
}
