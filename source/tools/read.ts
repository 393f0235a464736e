import {createHash} from 'node:crypto';
import type {Stats} from 'node:fs';
import {open, readdir, stat} from 'node:fs/promises';
import {z} from 'zod';
import {LIMITS} from '../core/limits.js';
import {formatBytes} from './fs/text.js';
import {defineTool, type ToolContext, type ToolResult} from '../core/tool.js';
import {errorMessage} from '../core/result.js';
import {
  errorResult,
  fail,
  isCode,
  isOutsideWorkspace,
  recordRead,
  resolvePath,
  specialFileReason,
  type ResolvedPath,
  type FsResult,
} from './fs/workspace.js';

const schema = z.object({
  path: z.string().min(1).describe('File or directory path, relative to the workspace root (or absolute).'),
  offset: z.number().int().positive().optional().describe('1-based line number to start from (default 1).'),
  limit: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`How many lines to return (default and maximum ${LIMITS.readMaxLines}).`),
});

export type ReadArgs = z.infer<typeof schema>;

export type ReadToolOptions = {
  maxLines?: number;
  maxBytes?: number;
  maxLineChars?: number;
};

export function createReadTool(options: ReadToolOptions = {}) {
  const limits = {
    maxLines: options.maxLines ?? LIMITS.readMaxLines,
    maxBytes: options.maxBytes ?? LIMITS.readMaxBytes,
    maxLineChars: options.maxLineChars ?? LIMITS.readMaxLineChars,
  };
  return defineTool({
    name: 'read',
    kind: 'read',
    description: [
      'Read a text file in the workspace; returns numbered lines (cat -n style: line number, tab, text).',
      `Returns at most ${limits.maxLines} lines or ${formatBytes(limits.maxBytes)} per call; a closing note says which offset to pass to read on.`,
      `Lines over ${limits.maxLineChars} characters are cut. A directory path returns its entries.`,
      'Read a file before you edit or overwrite it: write and edit refuse files you have not read.',
    ].join(' '),
    schema,
    keyArg: args => args.path,
    isOutside: (args, ctx) => isOutsideWorkspace(ctx.root, args.path),
    preview: async (args, ctx) => {
      const resolved = await resolvePath(ctx.root, args.path);
      // Nobody should be asked to approve reading /dev/zero only for it to be refused.
      const opened = await openForRead(resolved);
      if (!opened.ok && opened.error.code === 'special-file') return errorResult(opened.error);
      return {title: `read ${resolved.display}`, outside: resolved.outside};
    },
    run: (args, ctx, signal) => runRead(args, ctx, signal, limits),
  });
}

async function runRead(args: ReadArgs, ctx: ToolContext, signal: AbortSignal, limits: Required<ReadToolOptions>): Promise<ToolResult> {
  const resolved = await resolvePath(ctx.root, args.path);
  const opened = await openForRead(resolved);
  if (!opened.ok) return errorResult(opened.error);
  if (opened.value.isDirectory()) return listDirectory(resolved);

  const page = await readPage(resolved, {
    offset: args.offset ?? 1,
    limit: Math.min(args.limit ?? limits.maxLines, limits.maxLines),
    maxBytes: limits.maxBytes,
    maxLineChars: limits.maxLineChars,
    signal,
  });
  if (!page.ok) return errorResult(page.error);
  const {lines, first, totalLines, cutByBytes, size, hash} = page.value;
  // A read that showed nothing (offset past the end) does not count as having seen the file.
  if (totalLines > 0 && lines.length === 0) {
    return errorResult({
      code: 'offset-past-end',
      message: `offset ${first} is past the end of ${resolved.display}, which has ${totalLines} lines.`,
    });
  }
  recordRead(ctx.ledger, resolved.real, {size, mtimeMs: opened.value.mtimeMs, hash});
  if (totalLines === 0) {
    return {content: `${resolved.display} is empty (0 bytes).`, isError: false, detail: {summary: 'read 0 lines', lines: 0}};
  }
  const width = Math.max(6, String(first + lines.length - 1).length);
  const body = lines.map((line, index) => `${String(first + index).padStart(width)}\t${line}`).join('\n');
  const last = first + lines.length - 1;
  let note = '';
  if (last < totalLines) {
    const why = cutByBytes ? ` (stopped at the ${formatBytes(limits.maxBytes)} page limit)` : '';
    note = `\n\n[Showing lines ${first}–${last} of ${totalLines}${why}. To read on, call read with offset=${last + 1}.]`;
  }
  return {
    content: body + note,
    isError: false,
    detail: {summary: `read ${lines.length} line${lines.length === 1 ? '' : 's'}`, lines: lines.length},
  };
}

async function openForRead(resolved: ResolvedPath): Promise<FsResult<Stats>> {
  // Refuse by name before touching the file: stat on /proc is harmless, open on a FIFO is not.
  const byName = specialFileReason(resolved.real, null);
  if (byName) return fail('special-file', `${resolved.display} is ${byName}; read only reads regular files.`);
  try {
    const stats = await stat(resolved.real);
    const special = specialFileReason(resolved.real, stats);
    if (special) return fail('special-file', `${resolved.display} is ${special}; read only reads regular files.`);
    return {ok: true, value: stats};
  } catch (error) {
    if (isCode(error, 'ENOENT')) {
      return fail('not-found', `${resolved.display} does not exist. Check the path (list or grep can find files).`);
    }
    return fail('io', `Cannot read ${resolved.display}: ${errorMessage(error)}`);
  }
}

type Page = {lines: string[]; first: number; totalLines: number; cutByBytes: boolean; size: number; hash: string};

const CHUNK = 64 * 1024;

/**
 * Streams the file once: the whole of it is hashed (the stale-read guard needs the hash of what
 * is on disk, not of the page shown) and checked for NUL bytes and invalid UTF-8, but only the
 * requested page is kept, so a 10 MB log costs one pass and a page of memory.
 */
async function readPage(
  resolved: ResolvedPath,
  options: {offset: number; limit: number; maxBytes: number; maxLineChars: number; signal: AbortSignal},
): Promise<FsResult<Page>> {
  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8', {fatal: true});
  const lines: string[] = [];
  let pageBytes = 0;
  let collecting = true;
  let cutByBytes = false;
  let lineNumber = 0; // lines completed so far
  // The line in progress: its start, enough to show it cut, and a count of what follows. Keeping
  // a whole minified 60 MB line and re-splitting it per chunk took 36 s (quadratic).
  const keep = options.maxLineChars + 2; // a BOM, and one character past the limit
  let head = '';
  let dropped = 0;
  let droppedCR = false;
  const extend = (piece: string) => {
    if (piece === '') return;
    const room = keep - head.length;
    if (piece.length <= room) {
      head += piece;
      return;
    }
    if (room > 0) head += piece.slice(0, room);
    dropped += piece.length - Math.max(0, room);
    droppedCR = piece.endsWith('\r');
  };
  let size = 0;
  let newlines = 0;
  let endsWithNewline = false;

  const take = () => {
    lineNumber += 1;
    let line = head;
    let more = dropped;
    head = '';
    dropped = 0;
    if (!collecting || lineNumber < options.offset) return;
    if (more === 0 && line.endsWith('\r')) line = line.slice(0, -1);
    else if (more > 0 && droppedCR) more -= 1;
    if (lineNumber === 1 && line.startsWith('\uFEFF')) line = line.slice(1);
    const length = line.length + more;
    if (length > options.maxLineChars) {
      line = `${line.slice(0, options.maxLineChars)} … [line cut: ${length - options.maxLineChars} more characters]`;
    }
    const bytes = Buffer.byteLength(line) + 8;
    if (lines.length > 0 && pageBytes + bytes > options.maxBytes) {
      collecting = false;
      cutByBytes = true;
      return;
    }
    lines.push(line);
    pageBytes += bytes;
    if (lines.length >= options.limit) collecting = false;
  };

  let handle;
  try {
    handle = await open(resolved.real, 'r');
  } catch (error) {
    return fail('io', `Cannot open ${resolved.display}: ${errorMessage(error)}`);
  }
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      if (options.signal.aborted) return fail('aborted', 'Interrupted.');
      const {bytesRead} = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      size += bytesRead;
      endsWithNewline = chunk[bytesRead - 1] === 0x0a;
      if (chunk.includes(0)) {
        return fail(
          'binary',
          `${resolved.display} looks like a binary file (it contains NUL bytes); read shows text only. Inspect it with bash instead (for example \`file\` or \`xxd ... | head\`).`,
        );
      }
      for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) newlines += 1;
      let text: string;
      try {
        text = decoder.decode(chunk, {stream: true});
      } catch {
        return fail(
          'not-utf8',
          `${resolved.display} is not valid UTF-8 text (invalid bytes within the first ${size} bytes); read shows UTF-8 text only. Convert or inspect it with bash (for example \`iconv -f latin1 -t utf-8\` or \`file\`).`,
        );
      }
      if (!collecting) continue;
      const parts = text.split('\n');
      for (const [index, part] of parts.entries()) {
        extend(part);
        if (index === parts.length - 1) break;
        take();
        if (!collecting) break;
      }
    }
    try {
      extend(decoder.decode());
    } catch {
      return fail('not-utf8', `${resolved.display} ends in the middle of a UTF-8 character; it is not valid UTF-8 text.`);
    }
  } finally {
    await handle.close();
  }
  if (collecting && (head !== '' || dropped > 0)) take();
  const totalLines = size === 0 ? 0 : newlines + (endsWithNewline ? 0 : 1);
  return {ok: true, value: {lines, first: options.offset, totalLines, cutByBytes, size, hash: hash.digest('hex')}};
}

async function listDirectory(resolved: ResolvedPath): Promise<ToolResult> {
  let entries;
  try {
    entries = await readdir(resolved.real, {withFileTypes: true});
  } catch (error) {
    return errorResult({code: 'io', message: `Cannot list ${resolved.display}: ${errorMessage(error)}`});
  }
  const names = entries.map(entry => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
  const shown = names.slice(0, LIMITS.listMaxEntries);
  const more = names.length - shown.length;
  const header = `${resolved.display} is a directory with ${names.length} entr${names.length === 1 ? 'y' : 'ies'}:`;
  const tail = more > 0 ? `\n[${more} more entries not shown; use list with a glob to narrow down.]` : '';
  return {
    content: [header, ...shown].join('\n') + tail,
    isError: false,
    detail: {summary: `listed ${names.length} entries`, lines: shown.length},
  };
}

export const readTool = createReadTool();
