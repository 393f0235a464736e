import type {AgentEvent, TurnEndReason} from '../core/events.js';
import type {ToolContext, ToolResult} from '../core/tool.js';
import type {Guard} from './guard/guard.js';
import type {LoopTools} from './loop.js';
import {sandboxedResult} from './tool-run.js';

/**
 * `!command` at the prompt: the person runs a shell command themselves. It goes through the
 * registry's bash tool, so its timeout, output bounds, hidden keys and any sandbox around it all
 * apply; it needs no approval (the person typed it) and no model call. What it printed is kept
 * for the model as context for the next prompt.
 */

const SANDBOX_HINT =
  'It ran in the sandbox, as ! commands do, which may be why it failed: there the network is off (unless the sandbox allows it) and .git and everything outside the workspace are read-only. Run it in your own terminal instead.';

/** The command in a `!` prompt, or null when the prompt is not one (`!` alone is not). */
export function userCommandOf(prompt: string): string | null {
  if (!prompt.startsWith('!')) return null;
  const command = prompt.slice(1).trim();
  return command === '' ? null : command;
}

export async function runUserCommand(
  command: string,
  options: {tools: Pick<LoopTools, 'get' | 'load'>; context: ToolContext; signal: AbortSignal},
): Promise<ToolResult> {
  // The built-in tools load on demand (tools/builtin.ts): a ! command can be the first thing run.
  await options.tools.load?.();
  const bash = options.tools.get('bash');
  if (!bash) return {content: 'There is no bash tool in this session, so ! commands cannot run.', isError: true, code: 'no-bash', detail: {summary: 'not run'}};
  return bash.run({command}, options.context, options.signal);
}

/** How a command and its output reach the model: ahead of the next prompt, marked as the person's. */
export function userCommandNote(command: string, result: Pick<ToolResult, 'content'>): string {
  return [`The person ran this command in the workspace (with !, not through you):`, `$ ${command}`, result.content].join('\n');
}

/** The next prompt with the notes of the commands run since the last one in front of it. */
export function withUserCommandNotes(prompt: string, notes: readonly string[]): string {
  return notes.length === 0 ? prompt : [...notes, prompt].join('\n\n');
}

/**
 * A `!command` as the screen sees it: the prompt as typed, a bash badge with the output streaming
 * in, the output as a notice once it ends. Returns how it ended and the note for the next prompt.
 */
export async function runUserCommandTurn(
  prompt: string,
  command: string,
  options: {tools: Pick<LoopTools, 'get' | 'load'>; context: ToolContext; guard?: Guard | undefined; signal: AbortSignal; emit: (event: AgentEvent | {type: 'notice'; text: string}) => void; id: string; now: () => number},
): Promise<{reason: TurnEndReason; note: string}> {
  const {emit, id, now} = options;
  // The sandbox covers the person's own commands as it covers the model's.
  const wrap = await options.guard?.confinement();
  emit({type: 'turn-start', prompt, at: now()});
  emit({type: 'tool-call', id, name: 'bash', arguments: JSON.stringify({command}), keyArg: command});
  emit({type: 'tool-start', id, name: 'bash', at: now()});
  const context: ToolContext = {...options.context, ...(wrap ? {wrap} : {}), onOutput: chunk => emit({type: 'tool-output', id, chunk})};
  const ran = await runUserCommand(command, {tools: options.tools, context, signal: options.signal});
  const result = wrap ? sandboxedResult(ran) : ran;
  emit({type: 'tool-result', id, name: 'bash', isError: result.isError, content: result.content, ...(result.detail ? {detail: result.detail} : {}), at: now()});
  // Nobody is asked to run a ! command again outside (it is the person's own): they are told why it may have failed.
  const blamed = wrap !== undefined && !options.signal.aborted && options.guard?.blamesSandbox(result) === true;
  emit({type: 'notice', text: `$ ${command}\n${result.content}${blamed ? `\n${SANDBOX_HINT}` : ''}`});
  const reason: TurnEndReason = options.signal.aborted ? 'aborted' : 'completed';
  emit({type: 'turn-end', reason, at: now()});
  return {reason, note: userCommandNote(command, result)};
}
