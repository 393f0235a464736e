import {closeSync, constants, fstatSync, openSync, readFileSync, type Stats} from 'node:fs';
import {access, stat} from 'node:fs/promises';
import path from 'node:path';
import {createInterface} from 'node:readline';
import picomatch from 'picomatch';
import {z} from 'zod';
import {LIMITS} from '../core/limits.js';
import {defineTool, type ToolContext, type ToolResult} from '../core/tool.js';
import {Collector, type FileHits} from './grep-collect.js';
import {searchStreamed} from './grep-stream.js';
import {ancestorsWithin, walk} from './fs/walk.js';
import {errorMessage} from '../core/result.js';
import {displayPath, errorResult, fail, isOutsideWorkspace, resolvePath, specialFileReason, type FsResult} from './fs/workspace.js';

const schema = z.object({
  pattern: z.string().min(1).describe('Regular expression to search for (ripgrep syntax; keep to the common subset).'),
  path: z.string().optional().describe('File or directory to search, relative to the workspace root (default: the root).'),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts" or "src/**/*.tsx".'),
  ignore_case: z.boolean().optional().describe('Case-insensitive search (default false).'),
  context: z.number().int().min(0).max(20).optional().describe('Lines of context before and after each match (default 0).'),
  max_results: z
    .number()
    .int()
    .positive()
    .max(1000)
    .optional()
    .describe(`Most matching lines to return (default ${LIMITS.grepMaxResults}).`),
});

export type GrepArgs = z.infer<typeof schema>;

export type GrepToolOptions = {
  /**
   * The ripgrep binary: a path, `null` to always use the built-in walker, or undefined to look
   * for `rg` on PATH at each call.
   */
  rgPath?: string | null;
  maxLineChars?: number;
};

type Search = {
  dir: string;
  /** Set when the path is a single file: its name within `dir`. */
  file: string | null;
  args: GrepArgs;
  context: number;
  signal: AbortSignal;
  ancestors: string[];
  max: number;
  maxLineChars: number;
};

/** The built-in search reads files up to this size whole; larger ones are streamed in blocks. */
const BUILTIN_WHOLE_FILE_BYTES = 8 * 1024 * 1024;

export function createGrepTool(options: GrepToolOptions = {}) {
  const maxLineChars = options.maxLineChars ?? LIMITS.grepMaxLineChars;
  return defineTool({
    name: 'grep',
    kind: 'read',
    description: [
      'Search file contents with a regular expression; returns `path:line: text` for each matching line',
      '(context lines as `path-line- text`). Honours .gitignore and skips hidden and binary files.',
      `Returns at most max_results matching lines (default ${LIMITS.grepMaxResults}) and says how many were left out;`,
      `lines are cut at ${maxLineChars} characters. Narrow with path and glob.`,
    ].join(' '),
    schema,
    keyArg: args => args.pattern,
    isOutside: (args, ctx) => isOutsideWorkspace(ctx.root, args.path ?? '.'),
    preview: async (args, ctx) => {
      const resolved = await resolvePath(ctx.root, args.path ?? '.');
      return {title: `grep ${args.pattern} ${resolved.display}`, outside: resolved.outside};
    },
    run: async (args, ctx, signal) => {
      const rg = options.rgPath === undefined ? await findOnPath('rg') : options.rgPath;
      return runGrep(args, ctx, signal, rg, maxLineChars);
    },
  });
}

async function runGrep(args: GrepArgs, ctx: ToolContext, signal: AbortSignal, rg: string | null, maxLineChars: number): Promise<ToolResult> {
  const resolved = await resolvePath(ctx.root, args.path ?? '.');
  let stats: Stats;
  try {
    stats = await stat(resolved.real);
  } catch {
    return errorResult({code: 'not-found', message: `${resolved.display} does not exist. Check the path (list can show what is there).`});
  }
  // Named directly, a FIFO or /dev/zero never ends: both rg and the walker would read it forever.
  // Inside a searched directory they are skipped anyway (neither searches non-regular files).
  const special = specialFileReason(resolved.real, stats);
  if (special) {
    return errorResult({code: 'special-file', message: `${resolved.display} is ${special}; grep searches regular files and directories.`});
  }
  const isDirectory = stats.isDirectory();
  const dir = isDirectory ? resolved.real : path.dirname(resolved.real);
  const search: Search = {
    dir,
    file: isDirectory ? null : path.basename(resolved.real),
    args,
    context: args.context ?? 0,
    signal,
    ancestors: ancestorsWithin(ctx.root, dir),
    max: args.max_results ?? LIMITS.grepMaxResults,
    maxLineChars,
  };
  const max = search.max;
  // A read rule covers grep: a file it denies is searched but never shown (its name as shown and its real path are judged).
  const show = (relative: string) => displayPath(ctx.root, path.join(dir, relative));
  const deniedBy = (relative: string) => ctx.readDenied?.([show(relative), path.join(dir, relative)]) ?? null;
  const collector = new Collector(max, {deniedBy});
  const found = rg ? await searchWithRipgrep(rg, search, collector) : await searchBuiltIn(search, collector);
  if (!found.ok) return errorResult(found.error);
  return collector.render(show, maxLineChars, args, resolved.display);
}

async function searchWithRipgrep(rg: string, search: Search, collector: Collector): Promise<FsResult<void>> {
  const flags = ['--json', '--no-config', '--no-require-git', '--no-ignore-global', '--no-ignore-exclude', '--no-messages'];
  if (search.args.ignore_case) flags.push('--ignore-case');
  if (search.context > 0) flags.push('--context', String(search.context));
  if (search.args.glob) flags.push('--glob', search.args.glob);
  flags.push('--regexp', search.args.pattern, '--');
  if (search.file) flags.push(search.file);
  // Loaded on first use, like bash.ts: not on the path to the first request.
  const {execa} = await import('execa');
  const subprocess = execa(rg, flags, {
    cwd: search.dir,
    stdin: 'ignore',
    buffer: {stdout: false, stderr: true},
    reject: false,
    cancelSignal: search.signal,
    stripFinalNewline: true,
  });
  let current: {path: string; hits: FileHits} | null = null;
  const lines = createInterface({input: subprocess.stdout, crlfDelay: Infinity});
  for await (const line of lines) {
    const message = JSON.parse(line) as RgMessage;
    if (message.type === 'begin') {
      current = {path: rgText(message.data.path).replace(/^\.\//, ''), hits: {lines: new Map(), matches: 0}};
    } else if ((message.type === 'match' || message.type === 'context') && current) {
      const isMatch = message.type === 'match';
      current.hits.lines.set(message.data.line_number, {text: stripEol(rgText(message.data.lines)), isMatch});
      if (isMatch) current.hits.matches += 1;
    } else if (message.type === 'end' && current) {
      // Skipped outright by the built-in walker, so skipped here too: same results either way.
      if (message.data.binary_offset === null) collector.add(current.path, current.hits);
      current = null;
    }
  }
  const result = await subprocess;
  if (search.signal.aborted) return fail('aborted', 'Interrupted.');
  // 0: matches, 1: none; 2 with output is a partial failure (an unreadable file), which rg reports on stderr only.
  // 2 with a silent stderr means no file was searched at all (an empty directory, a glob that
  // matches nothing): --no-messages hid rg's note, and for the model that is simply no match.
  const reason = String(result.stderr ?? '').trim().split('\n').slice(0, 6).join('\n');
  if (result.exitCode === 2 && collector.totalMatches === 0 && reason !== '') {
    return fail('bad-pattern', `grep failed: ${reason}. If the pattern is a regex, check its syntax (escape ( [ { . * + ? with \\ to match them literally).`);
  }
  return {ok: true, value: undefined};
}

type RgData = {text?: string; bytes?: string};
type RgMessage =
  | {type: 'begin'; data: {path: RgData}}
  | {type: 'match' | 'context'; data: {path: RgData; lines: RgData; line_number: number}}
  | {type: 'end'; data: {path: RgData; binary_offset: number | null}}
  | {type: 'summary'; data: unknown};

function rgText(data: RgData): string {
  if (data.text !== undefined) return data.text;
  return Buffer.from(data.bytes ?? '', 'base64').toString('utf8');
}

function stripEol(text: string): string {
  return text.replace(/\r?\n$/, '');
}

async function searchBuiltIn(search: Search, collector: Collector): Promise<FsResult<void>> {
  let regex: RegExp;
  let prefilter: RegExp;
  try {
    const flags = search.args.ignore_case ? 'i' : '';
    regex = new RegExp(search.args.pattern, flags);
    // One test over the whole file first: most files do not match, and splitting them into
    // lines is what costs. With `m`, a match in any line is a match in the whole text.
    prefilter = new RegExp(search.args.pattern, `${flags}m`);
  } catch (error) {
    return fail('bad-pattern', `The pattern is not a valid regular expression: ${errorMessage(error)}. Escape ( [ { . * + ? with \\ to match them literally.`);
  }
  const glob = search.args.glob ? compileGlob(search.args.glob) : null;

  // Large files wait until the walk is done: the walk's visitor is synchronous, a stream is not.
  const large: {relative: string; absolute: string}[] = [];
  const searchFile = (relative: string, absolute: string) => {
    let bytes: Buffer;
    try {
      // Synchronous for speed on many small files; see walk() for why.
      const fd = openSync(absolute, 'r');
      try {
        if (fstatSync(fd).size > BUILTIN_WHOLE_FILE_BYTES) {
          large.push({relative, absolute});
          return;
        }
        bytes = readFileSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      return;
    }
    if (bytes.includes(0)) return;
    const text = bytes.toString('utf8');
    if (!prefilter.test(text)) return;
    collector.add(relative, searchText(text, regex, search.context));
  };

  if (search.file) {
    searchFile(search.file, path.join(search.dir, search.file));
  } else {
    await walk({dir: search.dir, ancestors: search.ancestors, includeHidden: false, signal: search.signal}, entry => {
      if (entry.isDirectory || (glob && !glob(entry.relative))) return;
      searchFile(entry.relative, entry.absolute);
    });
  }
  const stream = {regex, prefilter, context: search.context, keepMatches: search.max, keepChars: search.maxLineChars, signal: search.signal};
  for (const file of large) {
    if (search.signal.aborted) break;
    const hits = await searchStreamed(file.absolute, stream);
    if (hits) collector.add(file.relative, hits);
  }
  if (search.signal.aborted) return fail('aborted', 'Interrupted.');
  return {ok: true, value: undefined};
}

function searchText(text: string, regex: RegExp, context: number): FileHits {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const hits: FileHits = {lines: new Map(), matches: 0};
  for (const [index, raw] of lines.entries()) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!regex.test(line)) continue;
    hits.matches += 1;
    // Overwrites the line if an earlier match had added it as context.
    hits.lines.set(index + 1, {text: line, isMatch: true});
    for (let near = Math.max(0, index - context); near <= Math.min(lines.length - 1, index + context); near += 1) {
      if (!hits.lines.has(near + 1)) {
        const nearLine = lines[near]!;
        hits.lines.set(near + 1, {text: nearLine.endsWith('\r') ? nearLine.slice(0, -1) : nearLine, isMatch: false});
      }
    }
  }
  return hits;
}

/**
 * ripgrep's --glob: a pattern without a slash matches the file name at any depth; one with a
 * slash matches the path from the searched directory; a leading `!` excludes.
 */
export function compileGlob(glob: string): (relative: string) => boolean {
  const negated = glob.startsWith('!');
  const pattern = negated ? glob.slice(1) : glob;
  const matcher = picomatch(pattern.replace(/^\//, ''), {dot: true, basename: !pattern.includes('/')});
  if (!negated) return relative => matcher(relative);
  // An excluding glob also excludes whole directories (`!vendor`), as in ripgrep.
  return relative => {
    const parts = relative.split('/');
    return !parts.some((_, index) => matcher(parts.slice(0, index + 1).join('/')));
  };
}

export async function findOnPath(command: string): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next directory
    }
  }
  return null;
}

export const grepTool = createGrepTool();
