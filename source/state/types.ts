import type {SessionEvent} from '../agent/session/agent-session.js';
import type {SessionSummary} from '../agent/session/saved.js';
import type {RewindPoint, RewindScope} from '../agent/session/rewind.js';
import type {WorkspaceChange} from '../agent/session/snapshots.js';
import type {ApprovalMode} from '../core/approval-mode.js';
import type {ApprovalRequest} from '../core/events.js';
import type {ToolDetail} from '../core/tool.js';
import type {SplitScan} from './split.js';

export type ToolStatus = 'pending' | 'waiting-approval' | 'running' | 'done' | 'failed' | 'denied';

/** One tool call as the screen shows it. */
export type ToolView = {
  /** The model's tool-call id. */
  callId: string;
  name: string;
  /** The argument a badge shows: path, command, pattern (from the raw JSON arguments). */
  keyArg: string;
  status: ToolStatus;
  /** From tool-start's `at`. */
  startedAt?: number;
  /** From tool-result's `at`. */
  endedAt?: number;
  /** The tail of streamed output (bash), a few KB at most. */
  output: string;
  /** One line: "read 120 lines", "+12 −3", the error message, "denied: reason". */
  summary?: string;
  detail?: ToolDetail;
  /** The person edited the proposal before it ran. */
  edited?: boolean;
  /** The person was asked about this call (and so has seen its preview). */
  wasAsked?: boolean;
};

/** A finished thing on screen. Ids are stable: `t1`, `t2`, … in order of arrival. */
export type TranscriptItem =
  | {kind: 'user'; id: string; text: string}
  /** One finished markdown block of an answer (an answer is usually several). */
  | {kind: 'assistant'; id: string; text: string}
  /** Reasoning folded to one line once the answer starts. */
  | {kind: 'reasoning'; id: string; durationMs: number | null}
  | {kind: 'tool'; id: string; tool: ToolView}
  | {kind: 'notice'; id: string; text: string}
  | {kind: 'error'; id: string; text: string};

export type LiveTurn = {
  /** The open markdown block of the streaming answer (finished blocks already moved out). */
  text: string;
  /** Incremental scan of `text` for safe cuts (see split.ts). */
  scan: SplitScan;
  reasoning: string;
  reasoningStartedAt: number | null;
  /** Tool calls of the current round not finished yet, in call order. */
  tools: ToolView[];
  /** A compaction running before the next request: why, and since when. */
  compacting: {reason: 'auto' | 'overflow'; since: number} | null;
};

export type UsageTotals = {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens of the latest request: how full the context is now. */
  lastPromptTokens: number;
};

export type UiState = {
  transcript: readonly TranscriptItem[];
  /** Bumped by /clear so the screen can start a fresh <Static>. */
  epoch: number;
  nextId: number;
  live: LiveTurn;
  /** Approval requests waiting for a key; the screen shows the first. */
  approvals: readonly ApprovalRequest[];
  usage: UsageTotals;
  /** The session is running a turn, a compaction, an undo or a resume (its `busy` events). */
  busy: boolean;
  /** Prompts typed while busy, sent in order after the turn. */
  queue: readonly string[];
  mode: ApprovalMode;
  model: string;
  /** Tools the person answered "always" for, as the session last reported them. */
  alwaysTools: readonly string[];
  /** Allow rules answered "always" for this session. */
  alwaysRules: readonly string[];
  /** How full the next request's context is; `window` null when nobody knows. */
  context: {tokens: number; window: number | null};
  overlay: Overlay | null;
  /** The latest time seen in an event or tick (ms since epoch); 0 before any. */
  now: number;
};

/** What the screen (not the agent) changes. */
export type UiAction =
  | {type: 'tick'; at: number}
  | {type: 'queue-prompt'; text: string}
  /** The first queued prompt was sent. */
  | {type: 'dequeue-prompt'}
  | {type: 'notice'; text: string}
  /** A question shown in place of the prompt (session picker, undo); closed by the person's answer. */
  | {type: 'show-overlay'; overlay: Overlay}
  | {type: 'close-overlay'};

/** Something the person must answer before the prompt comes back. */
export type Overlay =
  | {kind: 'picker'; sessions: readonly SessionSummary[]; cancelLabel: string}
  /** The server's models (null: it has no model list), the current one marked. */
  | {kind: 'model'; models: readonly string[] | null; current: string}
  /** `rewind`: the question comes from /rewind (files you changed since would be overwritten). */
  | {kind: 'undo'; turn: number | undefined; label: number; changes: readonly WorkspaceChange[]; conflicts: readonly string[]; rewind?: {point: RewindPoint; scope: RewindScope}}
  /** The project's MCP servers waiting for approval in this workspace. */
  | {kind: 'mcp-approve'; servers: ReadonlyArray<{name: string; runs: string}>}
  | {kind: 'rewind'; points: readonly RewindPoint[]};

/** Everything the reducer folds: what the session reports and what the screen does. */
export type UiInput = SessionEvent | UiAction;

