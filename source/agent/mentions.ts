import {stat} from 'node:fs/promises';
import type {ToolContext} from '../core/tool.js';
import {resolvePath} from '../tools/fs/workspace.js';
import {findMentions} from '../core/mentions.js';

/**
 * `@path` in a prompt: the file's content (or a directory's listing) goes to the model with the
 * prompt, as the read tool would have returned it, and the file counts as read for the
 * read-before-write guard. Print mode and the TUI both send prompts through here.
 */

/** Characters that end a sentence rather than a path: `look at @src/a.ts.` means src/a.ts. */
const TRAILING = /[.,;:!?)\]}'`]+$/;

export type Attachment = {
  /** The path shown (relative to the workspace). */
  path: string;
  kind: 'file' | 'directory';
  /** What the read tool returned (numbered lines, a listing, or why it could not read). */
  content: string;
  isError: boolean;
};

export type ExpandedPrompt = {
  /** What the model receives: the prompt as typed, then each attachment. */
  text: string;
  attachments: Attachment[];
  /** One line per mention left out because a deny rule forbids reading it. */
  refused: string[];
};

/**
 * Attaches every mentioned path that exists inside the workspace, once each. A path that does not
 * exist (or leads out of the workspace) stays in the prompt as typed and nothing is attached.
 */
export async function expandMentions(prompt: string, context: ToolContext, signal: AbortSignal): Promise<ExpandedPrompt> {
  const attachments: Attachment[] = [];
  const refused: string[] = [];
  const seen = new Set<string>();
  for (const mention of findMentions(prompt)) {
    const target = await existingPath(context.root, mention.path);
    if (!target || seen.has(target.real)) continue;
    seen.add(target.real);
    // Typing @.env must not hand the model what a deny rule keeps from its read tool.
    const deny = context.readDenied?.([target.display, target.real]);
    if (deny) {
      refused.push(`@${target.display} was not attached: the deny rule ${deny} forbids reading it.`);
      continue;
    }
    // The read tool (and zod under its schema) loads only for a prompt that mentions a file.
    const {readTool} = await import('../tools/read.js');
    const result = await readTool.run({path: target.real}, context, signal);
    const content = context.redact ? context.redact(result.content) : result.content;
    attachments.push({path: target.display, kind: target.isDirectory ? 'directory' : 'file', content, isError: result.isError});
  }
  const text = attachments.length === 0 ? prompt : withAttachments(prompt, attachments);
  return {text: refused.length === 0 ? text : [text, '', ...refused].join('\n'), attachments, refused};
}

async function existingPath(root: string, written: string): Promise<{real: string; display: string; isDirectory: boolean} | null> {
  const trimmed = written.replace(TRAILING, '');
  for (const candidate of trimmed !== written && trimmed !== '' ? [written, trimmed] : [written]) {
    const resolved = await resolvePath(root, candidate);
    if (resolved.outside) continue;
    try {
      const stats = await stat(resolved.real);
      if (stats.isFile() || stats.isDirectory()) return {real: resolved.real, display: resolved.display, isDirectory: stats.isDirectory()};
    } catch {
      // Not there: try the next reading, or leave the mention as typed.
    }
  }
  return null;
}

function withAttachments(prompt: string, attachments: readonly Attachment[]): string {
  const blocks = attachments.map(attachment => {
    const label = attachment.kind === 'directory' ? 'directory' : 'file';
    return `<${label} path="${attachment.path}">\n${attachment.content}\n</${label}>`;
  });
  return [prompt, '', 'Attached with @ (as the read tool returns them; attached files count as read):', ...blocks].join('\n');
}
