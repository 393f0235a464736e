import {z} from 'zod';
import {LIMITS} from '../core/limits.js';
import {findMatch, nearestLine, reindent, replaceSpans, type Strategy} from './edit-match.js';
import {detectStyle, toFileText, toModelText} from './fs/text.js';
import {defineTool, type ToolContext} from '../core/tool.js';
import {commitPlan, planFileWrite, previewOf, type FileToolOptions, type WritePlan} from './write.js';
import {createCallResolver, errorResult, fail, type FsResult} from './fs/workspace.js';
import {protectedOf} from './fs/guards.js';

const schema = z.object({
  path: z.string().min(1).describe('File to change, relative to the workspace root (or absolute).'),
  old_string: z.string().describe('The exact text to replace, copied from the file, with enough context to be unique.'),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one (default false).'),
});

export type EditArgs = z.infer<typeof schema>;

const STRATEGY_NOTE: Record<Strategy, string> = {
  'trailing-whitespace': 'after ignoring trailing whitespace',
  typography: 'after ignoring trailing whitespace and typographic quotes, dashes and non-breaking spaces',
  indentation: 'after ignoring indentation, trailing whitespace and typographic characters (new_string was re-indented to match)',
};

type EditOutcome = {text: string; replacements: number; strategy: Strategy | null};

/**
 * The whole edit as a pure function of the file's text and the arguments: preview and run both
 * call it on the same bytes, so what the person approves is byte for byte what lands.
 */
export function applyEdit(fileText: string, args: EditArgs, display: string): FsResult<EditOutcome> {
  if (args.old_string === '') {
    return fail(
      'empty-old-string',
      'old_string is empty. To create or overwrite a whole file use write; to insert text, put a unique nearby line in old_string and repeat it in new_string together with the addition.',
    );
  }
  if (args.old_string === args.new_string) {
    return fail('no-change', 'old_string and new_string are identical, so the edit would change nothing. Send the text you want in new_string.');
  }
  const style = detectStyle(fileText);
  const text = toModelText(fileText, style);
  // The model may send CRLF too; in a CRLF file everything is matched as LF and written back as CRLF.
  const oldString = style.crlf ? args.old_string.replaceAll('\r\n', '\n') : args.old_string;
  let newString = style.crlf ? args.new_string.replaceAll('\r\n', '\n') : args.new_string;

  const match = findMatch(text, oldString, args.replace_all ?? false);
  if (match.kind === 'none') {
    const near = nearestLine(text, oldString);
    const hint = near
      ? ` The closest near-miss is line ${near.line}: ${JSON.stringify(near.text.length > 200 ? `${near.text.slice(0, 200)}…` : near.text)}.`
      : '';
    return fail(
      'not-found',
      `old_string was not found in ${display}, not even after ignoring trailing whitespace, typographic quotes and dashes, and indentation.${hint} Read the file again and copy the text exactly.`,
    );
  }
  if (match.kind === 'multiple') {
    const how = match.strategy ? ` (${STRATEGY_NOTE[match.strategy]})` : '';
    // Only an exact match can be replaced everywhere; suggesting replace_all when it is already
    // set would send the model round in a circle.
    const fix = args.replace_all
      ? 'replace_all only applies to exact matches: copy old_string exactly as it is in the file, or include more surrounding lines to make it unique.'
      : 'Include more surrounding lines in old_string to make it unique, or set replace_all to true to change every occurrence.';
    const {lines, more} = match.lines;
    const where = lines.length === 1 && !more ? `all on line ${lines[0]}` : `at lines ${lines.join(', ')}${more ? ', …' : ''}`;
    return fail('multiple-matches', `old_string occurs ${match.count} times in ${display}${how}, ${where}. ${fix}`);
  }
  let spans = match.spans;
  if (match.strategy === 'indentation' && spans.length === 1) {
    const shifted = reindent(text, spans[0]!, oldString, newString);
    spans = [shifted.span];
    newString = shifted.newString;
  }
  const replaced = replaceSpans(text, spans, newString);
  return {ok: true, value: {text: toFileText(replaced, style), replacements: spans.length, strategy: match.strategy}};
}

export function createEditTool(options: FileToolOptions = {}) {
  const maxBytes = options.maxBytes ?? LIMITS.writeMaxBytes;
  const resolve = createCallResolver();

  /** `edited`: the person's own version of the whole file, which replaces the model's edit. */
  const plan = async (args: EditArgs, ctx: ToolContext, edited: string | null) => {
    const resolved = await resolve(ctx.root, args);
    return planFileWrite<EditOutcome | {text: string}>(
      resolved,
      ctx,
      ({oldText}) => {
        if (oldText === null) return fail('file-not-found', `${resolved.display} does not exist. Use write to create a new file.`);
        return edited === null ? applyEdit(oldText, args, resolved.display) : {ok: true, value: {text: edited}};
      },
      maxBytes,
    );
  };

  const describe = (plan: WritePlan<EditOutcome | {text: string}>) => (changes: string) => {
    const outcome = plan.made;
    if (!('replacements' in outcome)) return `Updated ${plan.resolved.display} with the person's edited version (${changes}). Read it again before further edits.`;
    const count = outcome.replacements === 1 ? '1 occurrence' : `${outcome.replacements} occurrences`;
    const note = outcome.strategy
      ? ` Note: old_string matched only ${STRATEGY_NOTE[outcome.strategy]} (strategy: ${outcome.strategy}); check the result.`
      : '';
    return `Edited ${plan.resolved.display}: replaced ${count} (${changes}).${note}`;
  };

  const commit = (planned: Awaited<ReturnType<typeof plan>>, ctx: ToolContext, signal: AbortSignal | undefined) => {
    if (!planned.ok) return errorResult(planned.error);
    return commitPlan(planned.value, ctx, options, describe(planned.value), signal);
  };

  return defineTool({
    name: 'edit',
    kind: 'write',
    description: [
      'Replace text in an existing file: old_string must match exactly once (copy it from read output without the line-number prefix),',
      'unless replace_all is true. Include enough surrounding lines to make it unique.',
      'The file must have been read first and not changed since. Line endings, a BOM and the file mode are kept.',
      'new_string is inserted literally.',
    ].join(' '),
    schema,
    keyArg: args => args.path,
    isOutside: async (args, ctx) => (await resolve(ctx.root, args)).outside,
    protectedDir: async (args, ctx) => protectedOf(ctx.root, await resolve(ctx.root, args)),
    preview: async (args, ctx) => {
      const planned = await plan(args, ctx, null);
      return planned.ok ? previewOf('edit', planned.value, ctx.root) : errorResult(planned.error);
    },
    run: async (args, ctx, signal) => commit(await plan(args, ctx, null), ctx, signal),
    runEdited: async (args, text, ctx, signal) => commit(await plan(args, ctx, text), ctx, signal),
  });
}

export const editTool = createEditTool();
