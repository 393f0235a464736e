import {createTwoFilesPatch} from 'diff';
import type {ApprovalMode} from '../core/approval-mode.js';
import type {AgentEvent, ApprovalRequest, Decision} from '../core/events.js';
import type {Message, ToolCall} from '../core/messages.js';
import {isPreview, protectedPlace, type Tool, type ToolContext, type ToolPreview, type ToolResult} from '../core/tool.js';
import {judgeCall} from './approval.js';
import type {Guard} from './guard/guard.js';
import type {RuleMatch} from './guard/rules.js';
import {guard, sandboxedResult, startRun, untilAborted} from './tool-run.js';
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
  /** Permission rules, hooks and the sandbox of the session; absent in tests of the bare loop. */
  guard?: Guard;
  /** See RunAgentOptions.undoPoint. */
  undoPoint?: (forHooks?: boolean) => Promise<void>;
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

  // The undo point comes before anything of this call could change a file: the person's tool
  // hooks, which see every call, or else (below) the run of a call that was allowed.
  if (env.guard?.hasHooks('PreToolUse', 'PostToolUse') && !(yield* undoPoint(env, call, true))) return;

  // The person's PreToolUse hooks see every call first; exit 2 stops it before anything else.
  if (env.guard) {
    const hooked = await env.guard.preToolUse(tool.name, args);
    for (const warning of hooked.warnings) yield {type: 'error', code: 'hook', message: warning};
    if (hooked.blocked !== null) {
      yield* answer(env, call, {isError: true, code: 'hook-blocked', content: `A PreToolUse hook blocked this ${tool.name} call: ${hooked.blocked}`});
      return;
    }
  }
  const mode = env.mode();
  // Fail closed: when nib cannot tell where a call reaches, it is treated as outside.
  const outside = await guard(() => tool.isOutside(args, ctx), true);
  const protectedDir = tool.protectedDir ? await guard(() => tool.protectedDir!(args, ctx), '(unknown)') : null;
  const facts = env.guard ? await env.guard.facts(tool, args) : null;
  const match = facts ? env.guard!.match(facts) : null;
  // The sandbox comes from the guard per call: its probe runs when the first command needs it.
  const wrap = tool.confinable ? await env.guard?.confinement() : null;
  const sandboxed = Boolean(wrap);
  const verdict = judgeCall({
    kind: tool.kind,
    mode,
    outside,
    protectedPath: protectedDir !== null,
    alwaysAllowed: env.alwaysAllowed.has(tool.name),
    canAsk: env.canAsk,
    rule: match?.kind ?? null,
    sandboxed,
  });
  if (verdict === 'refuse') {
    yield* answer(env, call, {isError: true, code: 'refused', content: refusal(tool, mode, outside, protectedDir, env.canAsk, match)});
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
    const request: ApprovalRequest = {
      id: call.id,
      name: tool.name,
      args,
      preview,
      ...(facts ? {rules: await env.guard!.suggest(facts)} : {}),
      ...(sandboxed ? {sandboxed} : {}),
    };
    yield {type: 'approval-request', request, at: now()};
    const answered = await untilAborted(env.approve(request, signal), signal);
    if (!answered.ok) {
      yield* answer(env, call, {isError: true, code: 'interrupted', content: INTERRUPTED});
      return;
    }
    decision = answered.value;
    // Granted before the decision is reported, so whoever hears of it sees the grant in force:
    // the rules the person saw, or (with no rules to save) the tool for this session.
    if (decision.kind === 'always') {
      const kept = decision.rules?.length && env.guard ? await env.guard.remember(decision.rules, decision.scope ?? 'session') : null;
      if (!kept) env.alwaysAllowed.add(tool.name);
      else if (!kept.ok) yield {type: 'error', code: 'rules', message: `The rule was kept for this session only: ${kept.error}`};
    }
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

  if (tool.kind !== 'read' && !(yield* undoPoint(env, call))) return;
  // An interrupt that landed while the call was being checked or approved: most tools (write,
  // edit) do not watch the signal, so this is the last point where "not run" is still true.
  if (signal.aborted) {
    yield* answer(env, call, {isError: true, code: 'interrupted', content: INTERRUPTED});
    return;
  }
  yield {type: 'tool-start', id: call.id, name: tool.name, at: now()};
  let result = yield* runStreaming(env, call, tool, args, decision, wrap ? {...ctx, wrap} : ctx);
  if (sandboxed && env.guard?.blamesSandbox(result) && env.canAsk && !signal.aborted) {
    result = yield* offerUnsandboxed(env, call, tool, args, decision, result, preview);
  }
  if (sandboxed) result = sandboxedResult(result);
  if (env.guard) result = yield* postHooks(env.guard, tool.name, args, result);

  if (decision.kind === 'edit') result = withEditNote(result, preview, decision);
  if (signal.aborted) {
    result = {...result, isError: true, content: `Interrupted by the user while running.\n${result.content}`};
  }
  yield* answer(env, call, result);
}

/**
 * Waits for the turn's undo point (taking it first if none yet; `forHooks`: for the person's
 * hooks rather than the call's run); false, with the call answered, when the turn was stopped
 * before or meanwhile: a call that will not run takes no undo point.
 */
async function* undoPoint(env: CallEnv, call: ToolCall, forHooks = false): AsyncGenerator<AgentEvent, boolean> {
  if (!env.undoPoint) return true;
  const recorded = env.signal.aborted ? ({ok: false} as const) : await untilAborted(env.undoPoint(forHooks), env.signal);
  if (!recorded.ok) yield* answer(env, call, {isError: true, code: 'interrupted', content: INTERRUPTED});
  return recorded.ok;
}

/** Runs the call and streams its output as events; the result is the generator's return value. */
async function* runStreaming(env: CallEnv, call: ToolCall, tool: Tool, args: unknown, decision: Decision, ctx: ToolContext): AsyncGenerator<AgentEvent, ToolResult> {
  const run = startRun(tool, args, decision, ctx, env.signal);
  for await (const chunk of run.chunks) {
    yield {type: 'tool-output', id: call.id, chunk: ctx.redact ? ctx.redact(chunk) : chunk};
  }
  return run.running;
}

/**
 * A sandboxed command failed in a way the sandbox may have caused: the person may run it again
 * outside. That run is a new decision, asked like any unsandboxed command.
 */
async function* offerUnsandboxed(
  env: CallEnv, call: ToolCall, tool: Tool, args: unknown, decision: Decision, failed: ToolResult, preview: ToolPreview | undefined,
): AsyncGenerator<AgentEvent, ToolResult> {
  const previewed = preview ?? (await guard(() => tool.preview(args, env.context), undefined));
  if (!previewed || !isPreview(previewed)) return failed;
  const request: ApprovalRequest = {
    id: `${call.id}-unsandboxed`,
    name: tool.name,
    args,
    preview: {...previewed, title: `run again outside the sandbox: ${previewed.title}`},
    unsandboxed: true,
  };
  yield {type: 'approval-request', request, at: env.now()};
  const answered = await untilAborted(env.approve(request, env.signal), env.signal);
  if (!answered.ok) return failed;
  const chosen = answered.value;
  yield {type: 'approval-decision', id: request.id, decision: chosen};
  if (chosen.kind === 'no') return withNote(failed, 'The person chose not to run it again outside the sandbox.');
  // "always" grants nothing here: running outside the sandbox is decided each time.
  const again = yield* runStreaming(env, call, tool, args, chosen.kind === 'edit' ? chosen : decision, env.context);
  return withNote(again, 'It failed in the sandbox and the person ran it again outside it; this is the second run.');
}

async function* postHooks(guardian: Guard, name: string, args: unknown, result: ToolResult): AsyncGenerator<AgentEvent, ToolResult> {
  const hooked = await guardian.postToolUse(name, args, result);
  for (const warning of hooked.warnings) yield {type: 'error', code: 'hook', message: warning};
  // Exit 2 after the fact cannot undo the call; the hook's words reach the model instead.
  return hooked.blocked === null ? result : withNote(result, `A PostToolUse hook said: ${hooked.blocked}`);
}

function withNote(result: ToolResult, note: string): ToolResult {
  return {...result, content: `${result.content}\n\n[${note}]`};
}

/** What the model is told when a call is refused without asking, so it can change course. */
function refusal(tool: Tool, mode: ApprovalMode, outside: boolean, protectedDir: string | null, canAsk: boolean, match: RuleMatch | null): string {
  if (match?.kind === 'deny') {
    return `${tool.name} was not run: the person's permission rule deny ${match.rule.text} (${match.rule.source} settings) forbids it. Do not try to get around it; tell the user what you wanted to do.`;
  }
  if (mode === 'plan') {
    return `nib is in plan mode: only read tools run. ${tool.name} was not run; describe the change instead.`;
  }
  if (outside) {
    return `${tool.name} was not run: it reaches outside the workspace, and there is nobody to approve that in this non-interactive run.`;
  }
  if (protectedDir !== null && tool.kind === 'write') {
    return `${tool.name} was not run: it writes inside ${protectedPlace(protectedDir)}, which needs the user's approval (or --approval-mode yolo), and there is nobody to approve it in this non-interactive run. Tell the user what you would change there instead.`;
  }
  if (!canAsk && match?.kind === 'ask') {
    return `${tool.name} was not run: the person's permission rule ask ${match.rule.text} (${match.rule.source} settings) wants them asked first, and there is nobody to ask in this non-interactive run. Tell the user what you wanted to do.`;
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
