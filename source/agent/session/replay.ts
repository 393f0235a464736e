import type {AgentEvent} from '../../core/events.js';
import type {LoadedSession, SessionSummary} from './saved.js';

/** One line per session for /sessions and print mode: id, date, turns, model, first prompt. */
export function formatSessionList(sessions: readonly SessionSummary[], width = 100): string[] {
  return sessions.map(session => {
    const when = new Date(session.updated).toISOString().slice(0, 16).replace('T', ' ');
    const head = `${session.id}  ${when}  ${String(session.turns).padStart(3)} turn${session.turns === 1 ? ' ' : 's'}  ${session.model}`;
    const room = Math.max(10, width - head.length - 2);
    const prompt = session.firstPrompt.length > room ? `${session.firstPrompt.slice(0, room - 1)}…` : session.firstPrompt;
    return `${head}  ${prompt}`;
  });
}

/** A line the screen shows that is not an agent event (the reducer's `notice` action). */
export type ReplayNotice = {type: 'notice'; text: string};

/**
 * The events that rebuild a resumed session's transcript through the same reducer that drew it
 * the first time: recorded events as they were, answers as one text delta each (deltas are not
 * stored), compactions and undos as notices, and an end for a turn the log never saw end.
 */
export function replayEvents(loaded: Pick<LoadedSession, 'records'>): Array<AgentEvent | ReplayNotice> {
  const out: Array<AgentEvent | ReplayNotice> = [];
  let open = false;
  let lastAt = 0;
  for (const record of loaded.records) {
    lastAt = Math.max(lastAt, record.at);
    switch (record.type) {
      case 'event': {
        const event = record.event;
        if (event.type === 'turn-start') {
          if (open) out.push({type: 'turn-end', reason: 'aborted', at: record.at});
          open = true;
        }
        if (event.type === 'turn-end') open = false;
        out.push(event);
        break;
      }
      case 'message': {
        const {message} = record;
        if ((message.type === 'assistant-text' || message.type === 'assistant-tool-calls') && message.content) {
          out.push({type: 'text-delta', text: message.content, at: record.at});
        }
        break;
      }
      case 'compaction':
        out.push({type: 'notice', text: 'Context compacted: older turns were summarised for the model.'});
        break;
      case 'undo':
        // An undo happens between turns: a turn still open here was cut off by a crash.
        if (open) out.push({type: 'turn-end', reason: 'aborted', at: record.at});
        open = false;
        out.push({type: 'notice', text: `Undid turn ${record.turn}: files restored to before it.`});
        break;
      default:
        break;
    }
  }
  if (open) out.push({type: 'turn-end', reason: 'aborted', at: lastAt});
  return out;
}
