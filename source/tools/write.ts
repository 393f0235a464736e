import path from 'node:path';
import {z} from 'zod';
import {LIMITS} from '../core/limits.js';
import {countLineChanges, formatChanges} from './diff.js';
import {decodeText, detectStyle, formatBytes, toFileText} from './fs/text.js';
import {defineTool, type ToolContext, type ToolPreview, type ToolResult} from '../core/tool.js';
import {
  checkFresh,
  commitWrite,
  createCallResolver,
  errorResult,
  fail,
  readExisting,
  type AtomicWriteOptions,
  type ExistingFile,
  type ResolvedPath,
  type FsResult,
} from './fs/workspace.js';
import {checkWritable, protectedOf} from './fs/guards.js';

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace root (or absolute). Parent directories are created.'),
  content: z.string().describe('The complete new content of the file.'),
});

export type WriteArgs = z.infer<typeof schema>;

export type FileToolOptions = {
  /** Largest file nib writes, in bytes. */
  maxBytes?: number;
  /** Test seam: runs between writing the temp file and the rename (see writeAtomic). */
  beforeRename?: AtomicWriteOptions['beforeRename'];
};

/** A write, fully computed: the same plan is shown for approval and then committed. */
export type WritePlan<M extends {text: string} = {text: string}> = {
  resolved: ResolvedPath;
  existing: ExistingFile | null;
  /** The file's text now (BOM and line breaks as on disk), or null for a new file. */
  oldText: string | null;
  /** Exactly the text that will land. */
  newText: string;
  /** What the maker returned with the text (edit: how old_string matched). */
  made: M;
};

/**
 * Checks shared by write, edit and their person-edited variants: size, write permission, an
 * existing file must be text the agent has read and that has not changed since.
 */
export async function planFileWrite<M extends {text: string}>(
  resolved: ResolvedPath,
  ctx: ToolContext,
  make: (current: {oldText: string | null}) => FsResult<M>,
  maxBytes: number,
): Promise<FsResult<WritePlan<M>>> {
  // Resolving drops a trailing slash, so "newdir/" would become a file named newdir.
  const {input} = resolved;
  if (/(^|\/)\.{0,2}$/.test(input)) {
    const ending = input.endsWith('/') ? ' (it ends in "/")' : '';
    return fail(
      'is-directory',
      `${JSON.stringify(input)} names a directory${ending}, not a file. Give the path of the file itself, such as ${JSON.stringify(path.posix.join(input, 'name.txt'))}.`,
    );
  }
  const existing = await readExisting(resolved);
  if (!existing.ok) return existing;
  const writable = await checkWritable(resolved, existing.value);
  if (!writable.ok) return writable;
  let oldText: string | null = null;
  if (existing.value) {
    const fresh = checkFresh(ctx.ledger, resolved, existing.value.bytes);
    if (!fresh.ok) return fresh;
    const decoded = decodeText(resolved, existing.value.bytes);
    if (!decoded.ok) return decoded;
    oldText = decoded.value;
  }
  const made = make({oldText});
  if (!made.ok) return made;
  const newText = made.value.text;
  const size = Buffer.byteLength(newText);
  if (size > maxBytes) {
    return fail(
      'too-large',
      `The new content of ${resolved.display} would be ${formatBytes(size)}, ${(size - maxBytes).toLocaleString('en-US')} byte${size - maxBytes === 1 ? '' : 's'} over the ${formatBytes(maxBytes)} limit for files nib writes. Write a smaller file, or generate it with a command.`,
    );
  }
  return {ok: true, value: {resolved, existing: existing.value, oldText, newText, made: made.value}};
}

export function previewOf(verb: string, plan: WritePlan<{text: string}>, root: string): ToolPreview {
  const protectedDir = protectedOf(root, plan.resolved);
  return {
    title: `${verb} ${plan.resolved.display}`,
    outside: plan.resolved.outside,
    ...(protectedDir ? {protectedDir} : {}),
    file: {path: plan.resolved.display, oldText: plan.oldText, newText: plan.newText},
    editable: plan.newText,
  };
}

export async function commitPlan(
  plan: WritePlan<{text: string}>,
  ctx: ToolContext,
  options: FileToolOptions,
  describe: (changes: string) => string,
  signal?: AbortSignal,
): Promise<ToolResult> {
  // Planning a large file takes a moment: an interrupt that lands meanwhile still means "not run".
  if (signal?.aborted) return {isError: true, code: 'interrupted', content: `Interrupted before ${plan.resolved.display} was written; it is unchanged.`};
  const committed = await commitWrite(ctx.ledger, {
    resolved: plan.resolved,
    existing: plan.existing,
    bytes: Buffer.from(plan.newText),
    beforeRename: options.beforeRename,
  });
  if (!committed.ok) return errorResult(committed.error);
  const changes = countLineChanges(plan.oldText, plan.newText);
  return {
    content: describe(`+${changes.added} −${changes.removed} lines`),
    isError: false,
    detail: {
      summary: formatChanges(changes),
      file: {path: plan.resolved.display, oldText: plan.oldText, newText: plan.newText},
      added: changes.added,
      removed: changes.removed,
    },
  };
}

export function createWriteTool(options: FileToolOptions = {}) {
  const maxBytes = options.maxBytes ?? LIMITS.writeMaxBytes;
  const resolve = createCallResolver();

  const plan = async (args: WriteArgs, text: string, ctx: ToolContext, keepStyle: boolean) => {
    const resolved = await resolve(ctx.root, args);
    return planFileWrite(
      resolved,
      ctx,
      // An existing file keeps its BOM and CRLF line breaks: the model writes LF and no BOM, and
      // a file whose every line changed ending is a diff nobody can review.
      ({oldText}) => ({ok: true, value: {text: keepStyle && oldText !== null ? toFileText(text, detectStyle(oldText)) : text}}),
      maxBytes,
    );
  };

  const commit = async (planned: FsResult<WritePlan>, ctx: ToolContext, edited: boolean, signal: AbortSignal | undefined) => {
    if (!planned.ok) return errorResult(planned.error);
    const verb = planned.value.existing ? 'Updated' : 'Created';
    const by = edited ? " with the person's edited version" : '';
    return commitPlan(planned.value, ctx, options, changes => `${verb} ${planned.value.resolved.display}${by} (${changes}).`, signal);
  };

  return defineTool({
    name: 'write',
    kind: 'write',
    description: [
      'Create a file or replace its whole content. Parent directories are created.',
      'To change part of an existing file, prefer edit. An existing file must be read first (write refuses otherwise),',
      `and its BOM and CRLF line breaks are kept. Content is limited to ${formatBytes(maxBytes)}.`,
    ].join(' '),
    schema,
    keyArg: args => args.path,
    isOutside: async (args, ctx) => (await resolve(ctx.root, args)).outside,
    protectedDir: async (args, ctx) => protectedOf(ctx.root, await resolve(ctx.root, args)),
    preview: async (args, ctx) => {
      const planned = await plan(args, args.content, ctx, true);
      return planned.ok ? previewOf('write', planned.value, ctx.root) : errorResult(planned.error);
    },
    run: async (args, ctx, signal) => commit(await plan(args, args.content, ctx, true), ctx, false, signal),
    // The person's text is taken as they left it in the editor, byte for byte.
    runEdited: async (args, text, ctx, signal) => commit(await plan(args, text, ctx, false), ctx, true, signal),
  });
}

export const writeTool = createWriteTool();
