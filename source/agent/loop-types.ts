import type {ApprovalMode} from '../core/approval-mode.js';
import type {ApprovalRequest, Decision} from '../core/events.js';
import type {Message} from '../core/messages.js';
import type {ChatProvider, ContextRefusal, ToolDefinition} from '../core/chat.js';
import type {Tool, ToolContext, ToolKind} from '../core/tool.js';
import type {CompactResult} from './compact.js';
import type {Guard} from './guard/guard.js';

/** What runAgent is given: the registry, the conversation, the person's answers and the limits. */

/** The part of the tool registry the loop uses (source/tools/index.ts provides it). */
export type LoopTools = {
  /** What the model is offered this round; plan mode offers read tools only. */
  definitions: (options: {mode: ApprovalMode}) => ToolDefinition[];
  get: (name: string) => Tool | undefined;
  /** Raw JSON string -> validated arguments, or a sentence telling the model what was wrong. */
  parseArgs: (tool: Tool, raw: string) => {ok: true; value: unknown} | {ok: false; error: string};
  /** Every tool's name, kind and description (for /tools and --help), without loading any. */
  describe: () => Array<{name: string; kind: ToolKind; description: string}>;
  /**
   * For a registry that loads its tools on demand: started once the server answers the first
   * request (so it never delays that request), awaited before a call is looked up.
   */
  load?: () => Promise<void>;
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
  /** The session's number for this turn, kept on the prompt's message (/rewind maps messages to turns by it). */
  turn?: number;
  /** Read before every call: the person may switch modes while a turn runs. */
  mode: () => ApprovalMode;
  /** Asked when a call needs a person. The signal aborts when the turn is interrupted. */
  approve: (request: ApprovalRequest, signal: AbortSignal) => Promise<Decision>;
  /** False in print mode: nobody is there to answer, so calls that would ask are refused. */
  canAsk: boolean;
  /** Tool names the person answered "always" for; the loop adds to it. Lives with the session. */
  alwaysAllowed: Set<string>;
  maxRounds?: number;
  /** Permission rules, hooks and the sandbox (guard/guard.ts); lives with the session. */
  guard?: Guard;
  /**
   * Context management (compact.ts, context.ts): asked before every request whether to compact
   * first, and used once per turn when the server says the context is too long, before one retry.
   */
  compaction?: LoopCompaction;
  /**
   * Records the workspace for /undo, once per turn (later calls get the same promise). The first
   * call that can change a file starts it and waits: a write or exec call once it is allowed (asked
   * and answered yes, or allowed by its mode), just before it runs; any call before the person's
   * tool hooks, when there are some (`forHooks`). Read calls, refused or declined calls and a turn
   * that only answers never take one.
   */
  undoPoint?: (forHooks?: boolean) => Promise<void>;
  signal: AbortSignal;
  now?: () => number;
};

export type LoopCompaction = {
  /** What the checks need, waited for once the turn has started (print mode: the server's window, briefly). */
  ready?: () => Promise<void>;
  shouldCompact: (history: readonly Message[]) => boolean;
  compact: (history: readonly Message[], signal: AbortSignal) => Promise<CompactResult>;
  /**
   * Why a prompt cannot fit the window even alone (with system prompt and tools), else null; asked
   * before it joins the history, and again (`refused`) once the server refused it as too long.
   */
  refuse?: (prompt: string, history: readonly Message[], refused?: boolean) => string | null;
  /** Whether the window holds this history and the answer; asked after compacting, before sending. */
  fits?: (history: readonly Message[]) => boolean;
  /** The sentence for a history that still does not fit after compacting. */
  tooFull?: (history: readonly Message[]) => string;
  /** The server refused `history` as longer than its window; what it said sets the window and the scale. */
  learn?: (refusal: ContextRefusal, history: readonly Message[]) => void;
};
