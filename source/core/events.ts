import type {Message} from './messages.js';
import type {ToolDetail, ToolPreview} from './tool.js';

export type Usage = {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
};

/**
 * Why a user turn ended. `error` covers provider failures, cut-off streams and replies the
 * server stopped early (finish_reason `length` or `content_filter`).
 */
export type TurnEndReason = 'completed' | 'max-rounds' | 'aborted' | 'error';

/** The person's answer to an approval request. */
export type Decision =
  | {kind: 'yes'}
  /**
   * yes, and do not ask again: for the permission rules in `rules` (shown to the person before
   * saving), kept for this session or saved for the project; without rules, for this tool in
   * this session.
   */
  | {kind: 'always'; rules?: string[]; scope?: 'session' | 'project'}
  | {kind: 'no'; feedback?: string}
  /**
   * The person changed the proposal before it ran: `text` replaces the editable part of the
   * preview (the whole new file for write/edit, the command for bash). `note` tells the model
   * what else happened (e.g. which hunks were rejected in hunk mode).
   */
  | {kind: 'edit'; text: string; note?: string};

export type ApprovalRequest = {
  id: string;
  name: string;
  /** Parsed, validated arguments. */
  args: unknown;
  preview: ToolPreview;
  /** The allow rules "always" would save (empty: no rule fits, e.g. a command that did not parse). */
  rules?: string[];
  /** The command runs in the sandbox if approved. */
  sandboxed?: boolean;
  /** Asking to run again outside the sandbox after a sandboxed run failed. */
  unsandboxed?: boolean;
  /**
   * Set when the question is whether the turn goes on at all: the model has made this exact call
   * `repeats` times in a row. Yes runs it (it may still ask as a call); no stops the turn.
   */
  loop?: {repeats: number};
};

/**
 * Everything the loop reports. Events describe what happened, never what to draw.
 * `at` (ms since epoch) is stamped by the loop where a consumer needs time; reducers stay pure.
 */
export type AgentEvent =
  | {type: 'turn-start'; prompt: string; at: number}
  | {type: 'request-start'; round: number; at: number}
  | {type: 'text-delta'; text: string; at?: number}
  | {type: 'reasoning-delta'; text: string; at?: number}
  | {type: 'retry'; attempt: number; delayMs: number; message: string}
  /** A sentence for the person that changes nothing (the provider skipped chunks it could not read); print mode writes it to stderr. */
  | {type: 'notice'; text: string}
  /** A message was appended to the history (for persistence and resume). */
  | {type: 'message'; message: Message}
  /**
   * `keyArg`: the argument a badge shows (path, command, pattern); absent in logs of older versions.
   * `source: 'text'`: read from markup in the answer, not sent as a structured call.
   */
  | {type: 'tool-call'; id: string; name: string; arguments: string; keyArg?: string; source?: 'text'}
  | {type: 'approval-request'; request: ApprovalRequest; at?: number}
  | {type: 'approval-decision'; id: string; decision: Decision}
  | {type: 'tool-start'; id: string; name: string; at: number}
  | {type: 'tool-output'; id: string; chunk: string}
  | {
      type: 'tool-result';
      id: string;
      name: string;
      isError: boolean;
      /** What the model receives. */
      content: string;
      /** What the UI shows. */
      detail?: ToolDetail;
      at: number;
    }
  | {type: 'usage'; usage: Usage}
  /** The loop starts compacting before a request (the window nearly full, or the server refused it as too long). */
  | {type: 'compaction-start'; reason: 'auto' | 'overflow'; at: number}
  /**
   * The history the model sees was replaced by a summary plus the recent turns (compact.ts).
   * `history` is the new history without system messages; the session log keeps the old ones.
   */
  | {
      type: 'compaction';
      reason: 'auto' | 'overflow' | 'manual';
      summary: string;
      /** Messages folded into the summary, and messages kept as they were. */
      summarised: number;
      kept: number;
      /** Tool outputs cut to their head and tail to fit the window. */
      shortened?: number;
      history: Message[];
    }
  | {type: 'error'; message: string; code?: string}
  | {type: 'turn-end'; reason: TurnEndReason; at: number};
