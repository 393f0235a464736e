import type {ToolContext, ToolResult} from '../core/tool.js';
import type {LoopTools} from './loop.js';

/**
 * `!command` at the prompt: the person runs a shell command themselves. It goes through the
 * registry's bash tool, so its timeout, output bounds, hidden keys and any sandbox around it all
 * apply; it needs no approval (the person typed it) and no model call. What it printed is kept
 * for the model as context for the next prompt.
 */

/** The command in a `!` prompt, or null when the prompt is not one (`!` alone is not). */
export function userCommandOf(prompt: string): string | null {
  if (!prompt.startsWith('!')) return null;
  const command = prompt.slice(1).trim();
  return command === '' ? null : command;
}

export async function runUserCommand(
  command: string,
  options: {tools: Pick<LoopTools, 'get'>; context: ToolContext; signal: AbortSignal},
): Promise<ToolResult> {
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
