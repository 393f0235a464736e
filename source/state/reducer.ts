/**
 * The interactive session's state, folded from AgentEvents and UI actions. Pure: no clock (times
 * come from the events' `at` and from `tick` actions), no I/O, no mutation.
 *
 * The transcript is append-only and an item never changes once it is there, so the screen can
 * print it once (Ink's <Static>). Everything still moving lives in `live`.
 */
import type {ApprovalRequest, AgentEvent, Decision, Usage} from '../core/events.js';
import type {ApprovalMode} from '../core/approval-mode.js';
import type {ToolDetail} from '../core/tool.js';
import {emptyScan, scanSafePoints, type SplitScan} from './split.js';
import {nextMode} from '../core/approval-mode.js';
import {terminalSafe, toTerminalText} from '../core/terminal-text.js';

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
  busy: boolean;
  /** Prompts typed while busy, sent in order after the turn. */
  queue: readonly string[];
  mode: ApprovalMode;
  model: string;
  /** Tools the person answered "always" for in this session (revoked by /mode). */
  alwaysTools: readonly string[];
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
  | {type: 'set-mode'; mode: ApprovalMode}
  | {type: 'cycle-mode'}
  | {type: 'set-model'; model: string}
  | {type: 'clear'};

const outputTailChars = 4096;

export function initialState(init: {model: string; mode: ApprovalMode}): UiState {
  return {
    transcript: [],
    epoch: 0,
    nextId: 1,
    live: emptyLive,
    approvals: [],
    usage: {promptTokens: 0, completionTokens: 0, lastPromptTokens: 0},
    busy: false,
    queue: [],
    mode: init.mode,
    model: init.model,
    alwaysTools: [],
    now: 0,
  };
}

const emptyLive: LiveTurn = {text: '', scan: emptyScan, reasoning: '', reasoningStartedAt: null, tools: []};

export function reduce(state: UiState, raw: AgentEvent | UiAction): UiState {
  const input = displaySafe(raw);
  const s = 'at' in input && typeof input.at === 'number' && input.at > state.now ? {...state, now: input.at} : state;
  switch (input.type) {
    case 'turn-start':
      return append({...s, busy: true, live: emptyLive}, {kind: 'user', text: input.prompt});
    case 'request-start':
      return flushText(foldReasoning(s));
    case 'reasoning-delta':
      return {
        ...s,
        live: {
          ...s.live,
          reasoning: s.live.reasoning + input.text,
          reasoningStartedAt: s.live.reasoningStartedAt ?? s.now,
        },
      };
    case 'text-delta':
      return withText(foldReasoning(s), s.live.text + input.text);
    case 'retry':
      return append(s, {kind: 'notice', text: `${input.message}; retrying in ${formatSeconds(input.delayMs)}`});
    case 'message':
      return s;
    case 'tool-call':
      return updateLive(flushText(foldReasoning(s)), live => ({
        ...live,
        tools: [...live.tools, {callId: input.id, name: input.name, keyArg: keyArgOf(input.arguments), status: 'pending', output: ''}],
      }));
    case 'approval-request':
      if (s.approvals.some(request => request.id === input.request.id)) return s;
      return withTool({...s, approvals: [...s.approvals, input.request]}, input.request.id, tool => ({
        ...tool,
        status: 'waiting-approval',
        wasAsked: true,
      }));
    case 'approval-decision':
      return decide(s, input.id, input.decision);
    case 'tool-start':
      return withTool(s, input.id, tool => ({...tool, status: 'running', startedAt: input.at}));
    case 'tool-output':
      return withTool(s, input.id, tool => ({...tool, output: (tool.output + input.chunk).slice(-outputTailChars)}));
    case 'tool-result':
      return finishTool(s, input);
    case 'usage':
      return {...s, usage: addUsage(s.usage, input.usage)};
    case 'error':
      return append(flushText(foldReasoning(s)), {kind: 'error', text: input.message});
    case 'turn-end':
      return endTurn(s, input.reason);
    case 'tick':
      return s;
    case 'queue-prompt':
      return {...s, queue: [...s.queue, input.text]};
    case 'dequeue-prompt':
      return {...s, queue: s.queue.slice(1)};
    case 'notice':
      return append(s, {kind: 'notice', text: input.text});
    case 'set-mode':
      // Choosing a mode explicitly is the way to take back "always" answers.
      return {...s, mode: input.mode, alwaysTools: []};
    case 'cycle-mode':
      return {...s, mode: nextMode(s.mode)};
    case 'set-model':
      return {...s, model: input.model};
    case 'clear':
      return {...s, transcript: [], epoch: s.epoch + 1, alwaysTools: []};
    default:
      return s;
  }
}

function append(state: UiState, item: DistributiveOmit<TranscriptItem, 'id'>): UiState {
  return {
    ...state,
    transcript: [...state.transcript, {...item, id: `t${state.nextId}`} as TranscriptItem],
    nextId: state.nextId + 1,
  };
}

function updateLive(state: UiState, update: (live: LiveTurn) => LiveTurn): UiState {
  return {...state, live: update(state.live)};
}

/** Sets the open text and moves every block finished by now to the transcript. */
function withText(state: UiState, text: string): UiState {
  const scan = scanSafePoints(text, state.live.scan);
  if (scan.safe === 0) return updateLive(state, live => ({...live, text, scan}));
  const done = text.slice(0, scan.safe).trimEnd();
  const rest = text.slice(scan.safe);
  const next = updateLive(state, live => ({
    ...live,
    text: rest,
    scan: {scanned: scan.scanned - scan.safe, fence: scan.fence, safe: 0},
  }));
  return done.trim() === '' ? next : append(next, {kind: 'assistant', text: done});
}

/** Ends the open block: the round's text is over (a tool call, a new request, the end). */
function flushText(state: UiState): UiState {
  const text = state.live.text.trimEnd();
  const next = updateLive(state, live => ({...live, text: '', scan: emptyScan}));
  return text.trim() === '' ? next : append(next, {kind: 'assistant', text});
}

function foldReasoning(state: UiState): UiState {
  if (state.live.reasoning === '') return state;
  const startedAt = state.live.reasoningStartedAt;
  const durationMs = startedAt !== null && startedAt > 0 ? state.now - startedAt : null;
  const next = updateLive(state, live => ({...live, reasoning: '', reasoningStartedAt: null}));
  return append(next, {kind: 'reasoning', durationMs});
}

function withTool(state: UiState, callId: string, update: (tool: ToolView) => ToolView): UiState {
  if (!state.live.tools.some(tool => tool.callId === callId)) return state;
  return updateLive(state, live => ({
    ...live,
    tools: live.tools.map(tool => (tool.callId === callId ? update(tool) : tool)),
  }));
}

function decide(state: UiState, callId: string, decision: Decision): UiState {
  const request = state.approvals.find(candidate => candidate.id === callId);
  const approvals = state.approvals.filter(candidate => candidate.id !== callId);
  const name = request?.name ?? state.live.tools.find(tool => tool.callId === callId)?.name;
  const alwaysTools =
    decision.kind === 'always' && name !== undefined && !state.alwaysTools.includes(name)
      ? [...state.alwaysTools, name]
      : state.alwaysTools;
  return withTool({...state, approvals, alwaysTools}, callId, tool => {
    switch (decision.kind) {
      case 'no':
        return {...tool, status: 'denied', summary: decision.feedback ? `denied: ${decision.feedback}` : 'denied'};
      case 'edit':
        return {...tool, status: 'pending', edited: true};
      default:
        return {...tool, status: 'pending'};
    }
  });
}

function finishTool(state: UiState, result: Extract<AgentEvent, {type: 'tool-result'}>): UiState {
  const tool: ToolView = state.live.tools.find(candidate => candidate.callId === result.id) ?? {
    // A result for a call never announced (the loop answering an interrupted call): show it anyway.
    callId: result.id,
    name: result.name,
    keyArg: '',
    status: 'pending',
    output: '',
  };
  const finished: ToolView =
    tool.status === 'denied'
      ? {...tool, endedAt: result.at}
      : {
          ...tool,
          status: result.isError ? 'failed' : 'done',
          endedAt: result.at,
          summary: result.detail?.summary ?? firstLine(result.content),
          ...(result.detail ? {detail: result.detail} : {}),
        };
  const next = updateLive(state, live => ({...live, tools: live.tools.filter(candidate => candidate.callId !== result.id)}));
  return append({...next, approvals: next.approvals.filter(request => request.id !== result.id)}, {kind: 'tool', tool: finished});
}

function endTurn(state: UiState, reason: Extract<AgentEvent, {type: 'turn-end'}>['reason']): UiState {
  let next = flushText(foldReasoning(state));
  // The loop answers every call, but a turn that died must not leave badges spinning forever.
  for (const tool of next.live.tools) {
    next = append(next, {
      kind: 'tool',
      tool: {...tool, status: tool.status === 'denied' ? 'denied' : 'failed', summary: tool.summary ?? 'interrupted', endedAt: next.now},
    });
  }
  if (reason === 'aborted') next = append(next, {kind: 'notice', text: 'interrupted'});
  if (reason === 'max-rounds') next = append(next, {kind: 'notice', text: 'stopped: too many tool rounds in one turn'});
  return {...next, busy: false, approvals: [], live: emptyLive};
}

function addUsage(totals: UsageTotals, usage: Usage): UsageTotals {
  return {
    promptTokens: totals.promptTokens + usage.promptTokens,
    completionTokens: totals.completionTokens + usage.completionTokens,
    lastPromptTokens: usage.promptTokens,
  };
}

/**
 * Joins runs of deltas of the same kind into one, so a frame's worth of tokens (thousands when a
 * server sends at full speed) is folded once instead of once per token. Folding the result gives
 * the same text, reasoning and output as folding the inputs; a run of text deltas may be cut into
 * fewer, larger transcript blocks. Reasoning keeps the time of its first delta (when thinking
 * started), text and output the last.
 */
export function coalesceDeltas(inputs: ReadonlyArray<AgentEvent | UiAction>): Array<AgentEvent | UiAction> {
  const out: Array<AgentEvent | UiAction> = [];
  for (const input of inputs) {
    const last = out.at(-1);
    if (last?.type === 'text-delta' && input.type === 'text-delta') {
      out[out.length - 1] = {type: 'text-delta', text: last.text + input.text, ...atOf(input.at ?? last.at)};
    } else if (last?.type === 'reasoning-delta' && input.type === 'reasoning-delta') {
      out[out.length - 1] = {type: 'reasoning-delta', text: last.text + input.text, ...atOf(last.at ?? input.at)};
    } else if (last?.type === 'tool-output' && input.type === 'tool-output' && last.id === input.id) {
      out[out.length - 1] = {type: 'tool-output', id: input.id, chunk: (last.chunk + input.chunk).slice(-outputTailChars)};
    } else {
      out.push(input);
    }
  }
  return out;
}

function atOf(at: number | undefined): {at?: number} {
  return at === undefined ? {} : {at};
}

const keyArgNames = ['path', 'command', 'pattern', 'query', 'url', 'file', 'glob'];

/**
 * The argument worth showing on a badge, from the raw JSON the model sent (which may be
 * malformed: then there is nothing to show, and the tool result will say why).
 */
export function keyArgOf(argumentsJson: string): string {
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (typeof parsed !== 'object' || parsed === null) return '';
    const record = parsed as Record<string, unknown>;
    const name = keyArgNames.find(key => typeof record[key] === 'string');
    // Parsed from JSON, where an escape sequence travels as \u001b: cleaned after parsing.
    return name ? firstLine(toTerminalText(record[name] as string)) : '';
  } catch {
    // Malformed arguments are the tool's to report; the badge just has no argument.
    return '';
  }
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

export function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s` : `${Math.round(ms / 1000)} s`;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * What the screen shows of an event, with no terminal control characters: model text, tool output,
 * file content and errors could otherwise carry escape sequences to the terminal (Ink passes OSC
 * through). An approval keeps its proposal exact, since an edit or a hunk choice is built from it
 * and written to disk; the diff and command views clean what they draw.
 */
function displaySafe(input: AgentEvent | UiAction): AgentEvent | UiAction {
  if (input.type === 'approval-request') {
    const {request} = input;
    return {...input, request: {...request, name: toTerminalText(request.name), preview: {...request.preview, title: toTerminalText(request.preview.title)}}};
  }
  if (input.type === 'approval-decision') {
    const {decision} = input;
    return decision.kind === 'no' && decision.feedback ? {...input, decision: {...decision, feedback: toTerminalText(decision.feedback)}} : input;
  }
  return terminalSafe(input);
}
