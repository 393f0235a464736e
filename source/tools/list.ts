import {readlinkSync, realpathSync, statSync} from 'node:fs';
import {stat} from 'node:fs/promises';
import path from 'node:path';
import {z} from 'zod';
import {LIMITS} from '../core/limits.js';
import {compileGlob} from './grep.js';
import {defineTool, type ToolContext, type ToolResult} from '../core/tool.js';
import {ancestorsWithin, walk, type WalkEntry} from './fs/walk.js';
import {displayPath, errorResult, isInside, isOutsideWorkspace, resolvePath} from './fs/workspace.js';

const schema = z.object({
  path: z.string().optional().describe('Directory to list, relative to the workspace root (default: the root).'),
  glob: z.string().optional().describe('Instead of a tree, list the files matching this glob, e.g. "**/*.test.ts" or "*.md".'),
  depth: z.number().int().positive().max(20).optional().describe('Levels to descend in tree mode (default 3).'),
});

export type ListArgs = z.infer<typeof schema>;

export type ListToolOptions = {maxEntries?: number};

const HEAVY_DIRS = ['node_modules', '.git'];

export function createListTool(options: ListToolOptions = {}) {
  const maxEntries = options.maxEntries ?? LIMITS.listMaxEntries;
  return defineTool({
    name: 'list',
    kind: 'read',
    description: [
      `List a directory as a tree (default ${LIMITS.listDefaultDepth} levels deep), or with glob the files matching it.`,
      'Honours .gitignore; node_modules and .git are skipped unless the path or glob names them.',
      'Symbolic links are shown as `name -> target` and not entered.',
      `At most ${maxEntries} entries; the rest are counted.`,
    ].join(' '),
    schema,
    keyArg: args => args.glob ?? args.path ?? '.',
    isOutside: (args, ctx) => isOutsideWorkspace(ctx.root, args.path ?? '.'),
    preview: async (args, ctx) => {
      const resolved = await resolvePath(ctx.root, args.path ?? '.');
      return {title: `list ${resolved.display}${args.glob ? ` ${args.glob}` : ''}`, outside: resolved.outside};
    },
    run: (args, ctx, signal) => runList(args, ctx, signal, maxEntries),
  });
}

async function runList(args: ListArgs, ctx: ToolContext, signal: AbortSignal, maxEntries: number): Promise<ToolResult> {
  const resolved = await resolvePath(ctx.root, args.path ?? '.');
  try {
    if (!(await stat(resolved.real)).isDirectory()) {
      return errorResult({code: 'not-a-directory', message: `${resolved.display} is a file, not a directory; use read to see it.`});
    }
  } catch {
    return errorResult({code: 'not-found', message: `${resolved.display} does not exist.`});
  }
  // "Unless asked": listing inside node_modules, or a glob that names it, means the person wants it.
  const asked = `${resolved.display}/${args.glob ?? ''}`;
  const skipDirs = new Set(HEAVY_DIRS.filter(name => !asked.split('/').includes(name)));
  const walkOptions = {dir: resolved.real, ancestors: ancestorsWithin(ctx.root, resolved.real), includeHidden: true, skipDirs, links: true, signal};
  const show = (entry: WalkEntry) => displayPath(ctx.root, entry.absolute) + (entry.isLink ? linkSuffix(ctx.root, entry.absolute) : '');

  if (args.glob) {
    const matches = compileGlob(args.glob);
    const all: WalkEntry[] = [];
    await walk({...walkOptions, maxDepth: args.depth === undefined ? undefined : args.depth - 1}, entry => {
      if (!entry.isDirectory && matches(entry.relative)) all.push(entry);
    });
    const total = all.length;
    const found = all.sort((a, b) => compareSegments(a.relative, b.relative)).slice(0, maxEntries).map(show);
    if (total === 0) return {content: `No files match ${JSON.stringify(args.glob)} in ${resolved.display === '.' ? 'the workspace' : resolved.display}.`, isError: false, detail: {summary: '0 files', lines: 0}};
    const more = total > found.length ? `\n[${total - found.length} more matches not shown; narrow the glob or path.]` : '';
    return {content: found.join('\n') + more, isError: false, detail: {summary: `${total} file${total === 1 ? '' : 's'}`, lines: found.length}};
  }

  const depth = args.depth ?? LIMITS.listDefaultDepth;
  const entries: WalkEntry[] = [];
  await walk({...walkOptions, maxDepth: depth - 1}, entry => entries.push(entry));
  return {...renderTree(ctx.root, resolved.display, entries, maxEntries, depth), isError: false};
}

/**
 * ` -> target` as the link spells it, with what the model needs before following it: a target
 * that is a directory ends in `/`, and one outside the workspace or missing says so. The walk
 * never enters a link, so a link to `/` costs one line.
 */
function linkSuffix(root: string, absolute: string): string {
  let target: string;
  try {
    target = readlinkSync(absolute);
  } catch {
    return ' -> ?';
  }
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    return ` -> ${target} (broken)`;
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(real).isDirectory();
  } catch {
    // It resolved a moment ago; shown without the slash is near enough.
  }
  const slash = isDirectory && !target.endsWith('/') ? '/' : '';
  return ` -> ${target}${slash}${isInside(root, real) ? '' : ' (outside the workspace)'}`;
}

/**
 * Over the cap, shallow entries win: a tree that shows every top-level folder and stops early in
 * each says more than one that lists the first folder in full and nothing else.
 */
function renderTree(workspace: string, root: string, entries: WalkEntry[], maxEntries: number, depth: number): Pick<ToolResult, 'content' | 'detail'> {
  if (entries.length === 0) return {content: `${root}/ is empty.`, detail: {summary: '0 entries', lines: 0}};
  const kept = new Set([...entries].sort((a, b) => a.depth - b.depth).slice(0, maxEntries));
  const hiddenUnder = new Map<string, number>();
  for (const entry of entries) {
    if (kept.has(entry)) continue;
    const parent = entry.relative.includes('/') ? entry.relative.slice(0, entry.relative.lastIndexOf('/')) : '';
    hiddenUnder.set(parent, (hiddenUnder.get(parent) ?? 0) + 1);
  }
  const lines = [`${root}/`];
  // The walk reports a directory's entries before entering its subdirectories; a tree needs
  // each directory's contents right under it.
  const inTreeOrder = [...entries].sort((a, b) => compareSegments(a.relative, b.relative));
  for (const entry of inTreeOrder) {
    if (!kept.has(entry)) continue;
    const name = entry.relative.slice(entry.relative.lastIndexOf('/') + 1);
    const more = hiddenUnder.get(entry.relative);
    const kind = entry.isDirectory ? '/' : entry.isLink ? linkSuffix(workspace, entry.absolute) : '';
    lines.push(`${'  '.repeat(entry.depth + 1)}${name}${kind}${more ? `  (+${more} not shown)` : ''}`);
  }
  const cut = entries.length - kept.size;
  const notes: string[] = [];
  if (cut > 0) notes.push(`${cut} of ${entries.length} entries not shown; list a subdirectory or use a glob.`);
  if (entries.some(entry => entry.isDirectory && entry.depth === depth - 1)) {
    notes.push(`Directories at the depth limit (${depth}) are not expanded; pass a larger depth or a path to see inside.`);
  }
  return {
    content: lines.join('\n') + (notes.length > 0 ? `\n[${notes.join(' ')}]` : ''),
    detail: {summary: `${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}`, lines: kept.size},
  };
}

function compareSegments(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    if (left[index] !== right[index]) return left[index]! < right[index]! ? -1 : 1;
  }
  return left.length - right.length;
}

export const listTool = createListTool();
