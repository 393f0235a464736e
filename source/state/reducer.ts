/**
 * The interactive session's state, folded from AgentEvents and UI actions. Pure: no clock (times
 * come from the events' `at` and from `tick` actions), no I/O, no mutation.
 *
 * The transcript is append-only and an item never changes once it is there, so the screen can
 * print it once (Ink's <Static>). Everything still moving lives in `live`.
 */
import type {ApprovalMode} from '../core/approval-mode.js';
import type {AgentEvent, Decision, Usage} from '../core/events.js';
import {overwriteLines, terminalSafe, toTerminalText} from '../core/terminal-text.js';
import {compactionNote} from '../agent/window-text.js';
import {outputTailChars} from './coalesce.js';
import {emptyScan, scanSafePoints} from './split.js';
import type {LiveTurn, ToolView, TranscriptItem, UiInput, UiState, UsageTotals} from './types.js';
import {firstLine} from '../core/text.js';

export type {LiveTurn, Overlay, ToolStatus, ToolView, TranscriptItem, UiAction, UiInput, UiState, UsageTotals} from './types.js';
export {coalesceDeltas} from './coalesce.js';


export function initialState(init: {model: string; mode: ApprovalMode}): UiState {
  return {
    transcript: [],
    epoch: 0,
    nextId: 1,
    live: emptyLive,
    approvals: [],
    usage: noUsage,
    busy: false,
    queue: [],
    mode: init.mode,
    model: init.model,
    alwaysTools: [],
    alwaysRules: [],
    context: {tokens: 0, window: null},
    overlay: null,
    now: 0,
  };
}

const emptyLive: LiveTurn = {text: '', scan: emptyScan, reasoning: '', reasoningStartedAt: null, tools: [], compacting: null};
const noUsage: UsageTotals = {promptTokens: 0, completionTokens: 0, lastPromptTokens: 0};

export function reduce(state: UiState, raw: UiInput): UiState {
  const input = displaySafe(raw);
  const s = 'at' in input && typeof input.at === 'number' && input.at > state.now ? {...state, now: input.at} : state;
  switch (input.type) {
    case 'turn-start':
      return append({...s, live: emptyLive}, {kind: 'user', text: input.prompt});
    case 'request-start':
      return flushText(foldReasoning(compacted(s)));
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
      // The provider's message already says when and which attempt (as print mode shows it).
      return append(s, {kind: 'notice', text: input.message});
    case 'message':
      return s;
    case 'tool-call':
      return updateLive(flushText(foldReasoning(s)), live => ({
        ...live,
        tools: [...live.tools, {callId: input.id, name: input.name, keyArg: firstLine(input.keyArg ?? ''), status: 'pending', output: ''}],
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
      return withTool(s, input.id, tool => ({...tool, output: overwriteLines(tool.output + input.chunk).slice(-outputTailChars)}));
    case 'tool-result':
      return finishTool(s, input);
    case 'usage':
      return {...s, usage: addUsage(s.usage, input.usage)};
    case 'error':
      return append(flushText(foldReasoning(compacted(s))), {kind: 'error', text: input.message});
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
    case 'busy':
      return {...s, busy: input.busy};
    case 'mode':
      return {...s, mode: input.mode};
    case 'model':
      return {...s, model: input.model};
    case 'grants':
      return {...s, alwaysTools: input.tools, alwaysRules: input.rules};
    case 'context':
      return {...s, context: {tokens: input.tokens, window: input.window}};
    case 'cleared':
      // Another conversation (/clear, /resume): its tokens in and out are its own (a resumed one's are replayed).
      return {...s, transcript: [], epoch: s.epoch + 1, live: emptyLive, approvals: [], usage: noUsage};
    case 'compaction-start':
      return updateLive(flushText(foldReasoning(s)), live => ({...live, compacting: {reason: input.reason, since: input.at}}));
    case 'compaction':
      return append(compacted(s), {kind: 'notice', text: compactionNote(input)});
    case 'show-overlay':
      return {...s, overlay: input.overlay};
    case 'close-overlay':
      return {...s, overlay: null};
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

/** A compaction is over: done, failed, or there was nothing to compact and the request went out. */
function compacted(state: UiState): UiState {
  return state.live.compacting ? updateLive(state, live => ({...live, compacting: null})) : state;
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
  const approvals = state.approvals.filter(candidate => candidate !== request);
  return withTool({...state, approvals}, callId, tool => {
    switch (decision.kind) {
      case 'no':
        return {...tool, status: 'denied', summary: decision.feedback ? `denied: ${decision.feedback}` : 'denied'};
      case 'edit':
        // An edited command is what runs: the badge shows it, not the model's. (A session log
        // replayed on resume keeps no approval requests: there, the command is bash's.)
        return {...tool, status: 'pending', edited: true, ...((request ? request.preview.command !== undefined : tool.name === 'bash') ? {keyArg: decision.text} : {})};
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
  return {...next, approvals: [], live: emptyLive};
}

function addUsage(totals: UsageTotals, usage: Usage): UsageTotals {
  return {
    promptTokens: totals.promptTokens + usage.promptTokens,
    completionTokens: totals.completionTokens + usage.completionTokens,
    lastPromptTokens: usage.promptTokens,
  };
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
function displaySafe(input: UiInput): UiInput {
  if (input.type === 'approval-request') {
    const {request} = input;
    return {...input, request: {...request, name: toTerminalText(request.name), preview: {...request.preview, title: toTerminalText(request.preview.title)}}};
  }
  if (input.type === 'approval-decision') {
    const {decision} = input;
    return decision.kind === 'no' && decision.feedback ? {...input, decision: {...decision, feedback: toTerminalText(decision.feedback)}} : input;
  }
  // Made safe around its CRs, which overwriteLines then applies as a terminal would.
  if (input.type === 'tool-output') return {...input, chunk: input.chunk.split('\r').map(toTerminalText).join('\r')};
  return terminalSafe(input);
}
