import type {ApprovalMode} from '../../core/approval-mode.js';
import type {AgentEvent} from '../../core/events.js';
import type {LoadedSession} from './saved.js';

/** What a session reports besides the loop's own events; the TUI's reducer folds both. */
export type SessionEvent =
  | AgentEvent
  | {type: 'notice'; text: string}
  /** A turn, a compaction, an undo or a resume started (true) or ended (false). */
  | {type: 'busy'; busy: boolean}
  | {type: 'mode'; mode: ApprovalMode}
  | {type: 'model'; model: string}
  /** The tools answered "always" that are in force now. */
  | {type: 'grants'; tools: readonly string[]}
  /** The conversation on screen starts over (/clear, a resume); replayed events may follow. */
  | {type: 'cleared'}
  /** How full the context the next request carries is; `window` null when unknown. */
  | {type: 'context'; tokens: number; window: number | null};

export type SessionListener = (event: SessionEvent) => void;

export function resumedNotice(loaded: LoadedSession): SessionEvent {
  return {type: 'notice', text: `Resumed session ${loaded.header.id} (${loaded.turns} turns).`};
}

/** Deltas carry no time from the loop; the screen needs one to say how long reasoning took. */
export function stamp(event: AgentEvent, now: () => number): AgentEvent {
  if ((event.type === 'reasoning-delta' || event.type === 'text-delta') && event.at === undefined) return {...event, at: now()};
  return event;
}
