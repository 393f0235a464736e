import {createTwoFilesPatch} from 'diff';
import type {ApprovalMode} from '../core/approval-mode.js';
import type {AgentEvent, ApprovalRequest, Decision} from '../core/events.js';
import type {Message, ToolCall} from '../core/messages.js';
import {errorMessage} from '../core/result.js';
import {isPreview, type Tool, type ToolContext, type ToolPreview, type ToolResult} from '../core/tool.js';
import {judgeCall} from './approval.js';
import type {LoopTools} from './loop.js';

export const INTERRUPTED = 'Interrupted by the user before this call ran.';

/** What one call needs from the turn that runs it. */
export type CallEnv = {
  tools: LoopTools;
  context: ToolContext;
  mode: () => ApprovalMode;
  approve: (request: ApprovalRequest, signal: AbortSignal) => Promise<Decision>;
  canAsk: boolean;
  alwaysAllowed: Set<string>;
  signal: AbortSignal;
  now: () => number;
  /** Appends a message to the history and returns its `message` event. */
  append: (message: Message) => AgentEvent;
};

export function* answer(env: CallEnv, call: ToolCall, answered: ToolResult): Generator<AgentEvent> {
  const redact = env.context.redact;
  const result = redact ? {...answered, content: redact(answered.content)} : answered;
  yield env.append({
    type: 'tool-result',
    toolCallId: call.id,
    content: result.content,
    ...(result.isError ? {isError: true} : {}),
  });
  yield {
    type: 'tool-result',
    id: call.id,
    name: call.name,
    isError: result.isError,
    content: result.content,
    ...(result.detail ? {detail: result.detail} : {}),
    at: env.now(),
  };
}

/** The argument a badge or a print-mode line shows; empty when the call names no tool or its arguments do not parse. */
export function keyArgOf(tools: LoopTools, call: ToolCall): string {
  const tool = tools.get(call.name);
  if (!tool) return '';
  const parsed = tools.parseArgs(tool, call.arguments);
  return parsed.ok ? tool.keyArg(parsed.value) : '';
}

/**
 * One tool call: look it up, parse its arguments, judge it, ask when needed, run it, answer it.
 * Every path ends with exactly one answer, so the history stays valid for the next request.
 */
export async function* handleCall(env: CallEnv, call: ToolCall): AsyncGenerator<AgentEvent> {
  const {tools, signal} = env;
  const now = env.now;
  const tool = tools.get(call.name);
  if (!tool) {
    const offered = tools.definitions({mode: env.mode()}).map(d => d.function.name);
    yield* answer(env, call, {
      isError: true,
      code: 'unknown-tool',
      content: `There is no tool named "${call.name}". Available tools: ${offered.join(', ') || 'none'}.`,
    });
    return;
  }
  const parsed = tools.parseArgs(tool, call.arguments);
  if (!parsed.ok) {
    yield* answer(env, call, {isError: true, code: 'invalid-arguments', content: parsed.error});
    return;
  }
  const args = parsed.value;
  const ctx = env.context;

  const mode = env.mode();
  // Fail closed: when nib cannot tell where a call reaches, it is treated as outside.
  const outside = await guard(() => tool.isOutside(args, ctx), true);
  const protectedDir = tool.protectedDir ? await guard(() => tool.protectedDir!(args, ctx), '(unknown)') : null;
  const verdict = judgeCall({
    kind: tool.kind,
    mode,
    outside,
    protectedPath: protectedDir !== null,
    alwaysAllowed: env.alwaysAllowed.has(tool.name),
    canAsk: env.canAsk,
  });
  if (verdict === 'refuse') {
    yield* answer(env, call, {isError: true, code: 'refused', content: refusal(tool, mode, outside, protectedDir, env.canAsk)});
    return;
  }

  let decision: Decision = {kind: 'yes'};
  let preview: ToolPreview | undefined;
  if (verdict === 'ask') {
    const previewed = await guard(() => tool.preview(args, ctx), undefined);
    if (previewed === undefined) {
      yield* answer(env, call, {isError: true, code: 'preview-failed', content: `${tool.name} could not prepare this call.`});
      return;
    }
    // A call that cannot even be previewed (edit text not found, file not read yet) fails the
    // same way running it would; no point asking the person about it.
    if (!isPreview(previewed)) {
      yield* answer(env, call, previewed);
      return;
    }
    preview = previewed;
    const request: ApprovalRequest = {id: call.id, name: tool.name, args, preview};
    yield {type: 'approval-request', request, at: now()};
    const answered = await untilAborted(env.approve(request, signal), signal);
    if (!answered.ok) {
      yield* answer(env, call, {isError: true, code: 'interrupted', content: INTERRUPTED});
      return;
    }
    decision = answered.value;
    // Granted before the decision is reported, so whoever hears of it sees the grant in force.
    if (decision.kind === 'always') env.alwaysAllowed.add(tool.name);
    yield {type: 'approval-decision', id: call.id, decision};
  }

  if (decision.kind === 'no') {
    const reason = decision.feedback?.trim();
    yield* answer(env, call, {
      isError: true,
      code: 'denied',
      content: reason
        ? `The user declined this ${tool.name} call and said: ${reason}`
        : `The user declined this ${tool.name} call. Do not retry it unchanged; ask what they want instead.`,
    });
    return;
  }
  if (decision.kind === 'edit' && !tool.runEdited) {
    yield* answer(env, call, {isError: true, code: 'not-editable', content: `${tool.name} calls cannot be edited.`});
    return;
  }

  // An interrupt that landed while the call was being checked or approved: most tools (write,
  // edit) do not watch the signal, so this is the last point where "not run" is still true.
  if (signal.aborted) {
    yield* answer(env, call, {isError: true, code: 'interrupted', content: INTERRUPTED});
    return;
  }
  yield {type: 'tool-start', id: call.id, name: tool.name, at: now()};
  const output = new OutputQueue();
  const runCtx: ToolContext = {...ctx, onOutput: chunk => output.push(chunk)};
  const running = (async (): Promise<ToolResult> => {
    try {
      return decision.kind === 'edit'
        ? await tool.runEdited!(args, decision.text, runCtx, signal)
        : await tool.run(args, runCtx, signal);
    } catch (error) {
      // A throwing tool is a bug in nib; the model still gets an answer it can work with.
      return {isError: true, code: 'tool-crashed', content: `${tool.name} failed unexpectedly: ${errorMessage(error)}`};
    }
  })();
  for await (const chunk of output.drain(running)) {
    yield {type: 'tool-output', id: call.id, chunk: ctx.redact ? ctx.redact(chunk) : chunk};
  }
  let result = await running;

  if (decision.kind === 'edit') result = withEditNote(result, preview, decision);
  if (signal.aborted) {
    result = {...result, isError: true, content: `Interrupted by the user while running.\n${result.content}`};
  }
  yield* answer(env, call, result);
}

/** What the model is told when a call is refused without asking, so it can change course. */
function refusal(tool: Tool, mode: ApprovalMode, outside: boolean, protectedDir: string | null, canAsk: boolean): string {
  if (mode === 'plan') {
    return `nib is in plan mode: only read tools run. ${tool.name} was not run; describe the change instead.`;
  }
  if (outside) {
    return `${tool.name} was not run: it reaches outside the workspace, and there is nobody to approve that in this non-interactive run.`;
  }
  if (protectedDir !== null && tool.kind === 'write') {
    return `${tool.name} was not run: it writes inside ${protectedDir}/, a version-control directory, which needs the user's approval (or --approval-mode yolo), and there is nobody to approve it in this non-interactive run. Tell the user what you would change there instead.`;
  }
  if (!canAsk) {
    const flag = tool.kind === 'write' ? 'auto-edit or yolo' : 'yolo';
    return `${tool.name} was not run: non-interactive runs in approval mode "${mode}" refuse ${tool.kind} tools (the user can allow them with --approval-mode ${flag}). Tell the user what you would have done instead.`;
  }
  return `${tool.name} was not run: not allowed in approval mode "${mode}".`;
}

/** Tells the model the person changed its proposal, and exactly how. */
function withEditNote(result: ToolResult, preview: ToolPreview | undefined, decision: {text: string; note?: string}): ToolResult {
  const proposed = preview?.editable ?? '';
  const name = preview?.file?.path ?? (preview?.command ? 'command' : 'proposal');
  const patch = createTwoFilesPatch(name, name, ensureNewline(proposed), ensureNewline(decision.text), 'your proposal', 'what ran');
  const lines = [
    'The user edited your proposal before it ran. Their change (your proposal -> what ran):',
    patch.trimEnd(),
  ];
  if (decision.note) lines.push(`Note from the user: ${decision.note}`);
  lines.push('', 'Result:', result.content);
  return {...result, content: lines.join('\n')};
}

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** Runs a tool step; a throw (a tool bug) becomes `fallback` instead of ending the turn. */
async function guard<T>(step: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await step();
  } catch {
    // A throwing tool is a bug in nib, not something the model or the person can act on; the
    // caller turns the fallback into a result the model sees.
    return fallback;
  }
}

export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<{ok: true; value: T} | {ok: false}> {
  if (signal.aborted) return Promise.resolve({ok: false});
  return new Promise(resolve => {
    const onAbort = () => resolve({ok: false});
    signal.addEventListener('abort', onAbort, {once: true});
    promise.then(
      value => {
        signal.removeEventListener('abort', onAbort);
        resolve({ok: true, value});
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve({ok: false});
      },
    );
  });
}

/**
 * Tool output arrives through a callback while `run` is pending; the generator can only yield
 * from its own body, so chunks wait here until it pulls them.
 */
class OutputQueue {
  private chunks: string[] = [];
  private wake: (() => void) | undefined;

  push(chunk: string): void {
    this.chunks.push(chunk);
    this.wake?.();
  }

  async *drain(done: Promise<unknown>): AsyncGenerator<string> {
    let finished = false;
    const finish = () => {
      finished = true;
      this.wake?.();
    };
    done.then(finish, finish);
    while (true) {
      while (this.chunks.length > 0) yield this.chunks.shift()!;
      if (finished) return;
      await new Promise<void>(resolve => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
