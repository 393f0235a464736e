import {INIT_PROMPT} from '../agent/session/instructions.js';
import {formatSessionList} from '../agent/session/replay.js';
import type {AgentSession, RewindScope} from '../agent/session/agent-session.js';
import type {RewindPoint} from '../agent/session/rewind.js';
import type {Overlay, UiInput} from '../state/reducer.js';
import {note, type CommandContext, type SlashCommand} from './context.js';
import {BUSY_MESSAGE} from '../agent/session/core.js';

/** Sessions, undo and compaction: each asks the session and shows its answer. */
export const sessionCommands: readonly SlashCommand[] = [
  {name: 'undo', args: '[N]', description: 'restore files to before the last turn that changed them (or turn N); shows the diff first', run: planUndo},
  {name: 'diff', description: 'everything changed in the workspace since nib first changed a file this session', run: showDiff},
  {name: 'resume', args: '[ID]', description: 'continue an earlier session of this workspace', run: resume},
  {name: 'sessions', args: '[delete ID]', description: "list (or delete) this workspace's sessions", run: sessions},
  {name: 'compact', description: 'summarise older turns to free context', run: compact},
  {name: 'rewind', description: 'go back to just before an earlier prompt (also esc twice)', run: (_arg, context) => openRewind(context.session, context.dispatch)},
  {name: 'init', description: 'ask the model to write a starter AGENTS.md', run: (_arg, context) => context.submit(INIT_PROMPT)},
];


async function planUndo(arg: string, context: CommandContext) {
  if (context.session.busy) return note(context, BUSY_MESSAGE);
  const turn = arg ? Number(arg) : undefined;
  if (turn !== undefined && (!Number.isInteger(turn) || turn < 1)) return note(context, 'Usage: /undo, or /undo N to go back to before turn N.');
  const plan = await context.session.planUndo(turn);
  if (!plan.ok) return note(context, plan.error);
  if (plan.value.changes.length === 0) return note(context, `Nothing to undo: the files are as they were before turn ${plan.value.turn}.`);
  context.dispatch({type: 'show-overlay', overlay: {kind: 'undo', turn, label: plan.value.turn, changes: plan.value.changes, conflicts: plan.value.conflicts}});
}

async function showDiff(_arg: string, context: CommandContext) {
  const diff = await context.session.diff();
  if (!diff.ok) return note(context, diff.error);
  if (diff.value.length === 0) return note(context, 'No changes in this session.');
  const patches = diff.value.map(change => change.patch.trimEnd() || `${change.status} ${change.path}`);
  note(context, `Changed in this session (${diff.value.length} file${diff.value.length === 1 ? '' : 's'}):\n${patches.join('\n')}`);
}

async function resume(arg: string, context: CommandContext) {
  if (context.session.busy) return note(context, BUSY_MESSAGE);
  if (arg) return reportFailure(context.dispatch, await context.session.resume(arg));
  context.dispatch({type: 'show-overlay', overlay: {kind: 'picker', sessions: await context.session.sessions(), cancelLabel: 'back to this session'}});
}

async function sessions(arg: string, context: CommandContext) {
  const [verb, id] = arg.split(/\s+/);
  if (verb === 'delete' || verb === 'rm') {
    if (!id) return note(context, 'Usage: /sessions delete ID');
    const deleted = await context.session.deleteSession(id);
    return note(context, deleted.ok ? `Deleted ${deleted.value}.` : deleted.error);
  }
  const lines = formatSessionList(await context.session.sessions(), context.width);
  note(context, lines.length > 0 ? `Sessions in this workspace (newest first; /resume ID, /sessions delete ID):\n${lines.join('\n')}` : 'No sessions yet.');
}

async function compact(_arg: string, context: CommandContext) {
  if (context.session.busy) return note(context, BUSY_MESSAGE);
  note(context, 'Compacting: the model summarises the older turns…');
  const result = await context.session.compact();
  if (!result.ok) return note(context, result.error);
  note(context, `Compacted: ${result.value.summarised} messages summarised, ${result.value.kept} kept. The session log keeps them all.`);
}

/** The person's answer to the undo question the overlay asked (for /rewind: the prompt to put back in the box, if any). */
export async function answerUndo(session: AgentSession, dispatch: (input: UiInput) => void, yes: boolean, overlay: Extract<Overlay, {kind: 'undo'}>): Promise<string | null> {
  dispatch({type: 'close-overlay'});
  const what = overlay.rewind ? 'Rewind' : 'Undo';
  if (!yes) {
    dispatch({type: 'notice', text: `${what} cancelled; nothing changed.`});
    return null;
  }
  if (overlay.rewind) return rewindNow(session, dispatch, overlay.rewind.point, overlay.rewind.scope);
  const result = await session.undo(overlay.turn);
  dispatch({type: 'notice', text: result.ok ? `Undid turn ${result.value.turn}: ${result.value.restored.length} file(s) restored, ${result.value.deleted.length} deleted.` : result.error});
  return null;
}

/** /rewind and esc twice: the earlier prompts to choose from. */
export function openRewind(session: AgentSession, dispatch: (input: UiInput) => void) {
  if (session.busy) return dispatch({type: 'notice', text: BUSY_MESSAGE});
  const points = session.rewindPoints();
  if (points.length === 0) return dispatch({type: 'notice', text: 'No earlier prompt to rewind to.'});
  dispatch({type: 'show-overlay', overlay: {kind: 'rewind', points}});
}

/** What the person chose in the rewind list (null: left it); the prompt to put back in the box, if any. */
export async function answerRewind(session: AgentSession, dispatch: (input: UiInput) => void, point: RewindPoint | null, scope: RewindScope): Promise<string | null> {
  dispatch({type: 'close-overlay'});
  if (point === null) return null;
  if (scope !== 'conversation') {
    // Files the person changed after the agent's last turn would be overwritten: asked first, with
    // the diff, as /undo asks.
    const plan = await session.planUndo(point.turn);
    if (plan.ok && plan.value.conflicts.length > 0) {
      const {changes, conflicts} = plan.value;
      dispatch({type: 'show-overlay', overlay: {kind: 'undo', turn: point.turn, label: point.turn, changes, conflicts, rewind: {point, scope}}});
      return null;
    }
  }
  return rewindNow(session, dispatch, point, scope);
}

async function rewindNow(session: AgentSession, dispatch: (input: UiInput) => void, point: RewindPoint, scope: RewindScope): Promise<string | null> {
  const result = await session.rewind(point.turn, scope);
  if (!result.ok) {
    dispatch({type: 'notice', text: result.error});
    return null;
  }
  // The files alone went back: the conversation, and the prompt already sent, stay.
  return scope === 'files' ? null : result.value.prompt;
}

/** A session chosen in the picker (or the picker left with esc). */
export async function pickSession(session: AgentSession, dispatch: (input: UiInput) => void, id: string | null) {
  dispatch({type: 'close-overlay'});
  if (id !== null) reportFailure(dispatch, await session.resume(id));
}

/** `nib --resume` without an id: the picker is the first thing on screen. */
export async function openPicker(session: AgentSession, dispatch: (input: UiInput) => void) {
  dispatch({type: 'show-overlay', overlay: {kind: 'picker', sessions: await session.sessions(), cancelLabel: 'new session'}});
}

function reportFailure(dispatch: (input: UiInput) => void, result: {ok: true} | {ok: false; error: string}) {
  if (!result.ok) dispatch({type: 'notice', text: result.error});
}
