import type {ApprovalMode} from '../../core/approval-mode.js';
import type {AgentEvent} from '../../core/events.js';
import type {ChatProvider} from '../../core/chat.js';
import type {Message} from '../../core/messages.js';
import type {ToolContext} from '../../core/tool.js';
import type {Guard} from '../guard/guard.js';
import type {LoopTools} from '../loop.js';
import type {McpControl} from '../mcp/control.js';
import type {LoadedSession} from './saved.js';
import type {SessionStore} from './store.js';

/** What a session reports besides the loop's own events (its notices are AgentEvents too); the TUI's reducer folds both. */
export type SessionEvent =
  | AgentEvent
  /** A turn, a compaction, an undo or a resume started (true) or ended (false). */
  | {type: 'busy'; busy: boolean}
  | {type: 'mode'; mode: ApprovalMode}
  | {type: 'model'; model: string}
  /** The tools answered "always" that are in force now. */
  /** What "always" allows in this session: tools granted whole, and the allow rules answered so. */
  | {type: 'grants'; tools: readonly string[]; rules: readonly string[]}
  /** The conversation on screen starts over (/clear, a resume); replayed events may follow. */
  | {type: 'cleared'}
  /** How full the context the next request carries is; `window` null when unknown. */
  | {type: 'context'; tokens: number; window: number | null};

export type SessionListener = (event: SessionEvent) => void;

export function resumedNotice(loaded: LoadedSession): SessionEvent {
  return {type: 'notice', text: `Resumed session ${loaded.header.id} (${loaded.turns} turn${loaded.turns === 1 ? '' : 's'}).`};
}

/** Deltas carry no time from the loop; the screen needs one to say how long reasoning took. */
export function stamp(event: AgentEvent, now: () => number): AgentEvent {
  if ((event.type === 'reasoning-delta' || event.type === 'text-delta') && event.at === undefined) return {...event, at: now()};
  return event;
}

/** What openSession hands a new AgentSession. */
export type AgentSessionInit = {
  store: SessionStore;
  /** Starts with the system message. */
  history: Message[];
  tools: LoopTools;
  /** The MCP servers whose tools are in `tools`; close() ends them. */
  mcp?: McpControl;
  context: ToolContext;
  mode: ApprovalMode;
  /** Builds the provider for a model; called again by setModel. */
  connect: (model: string) => ChatProvider;
  model: string;
  /** False in print mode: nobody is there to answer, so calls that would ask are refused. */
  canAsk: boolean;
  maxRounds: number;
  /** Permission rules, hooks and the sandbox (agent/guard). */
  guard?: Guard;
  /** Lines from opening the guard: no sandbox here, project rules waiting for trust. */
  notices?: readonly string[];
  now?: () => number;
  /** No model was configured and the server serves several: the TUI asks which first. */
  chooseModel?: boolean;
  /** Reads the instruction files again before a prompt; what to tell the person when they changed. */
  refreshInstructions?: () => Promise<string | null>;
};
