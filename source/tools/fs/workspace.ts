import {createHash, randomBytes} from 'node:crypto';
import {constants, type Stats} from 'node:fs';
import {mkdir, open, realpath, rename, stat, unlink, type FileHandle} from 'node:fs/promises';
import {homedir} from 'node:os';
import path from 'node:path';
import {errorMessage, type Failure, type Result} from '../../core/result.js';
import type {ReadLedger, ReadRecord, ToolResult} from '../../core/tool.js';

/** A failure the model (and a test) can act on: a code from a small set and a sentence. */
export type ToolError = Failure;
export type FsResult<T> = Result<T, ToolError>;

export function fail(code: string, message: string): {ok: false; error: ToolError} {
  return {ok: false, error: {code, message}};
}

export function errorResult(error: ToolError): ToolResult {
  return {content: error.message, isError: true, code: error.code, detail: {summary: error.code}};
}

export type ResolvedPath = {
  /** What the model asked for, as given. */
  input: string;
  /** Lexically resolved absolute path (symlinks not followed). */
  absolute: string;
  /**
   * The real path: symlinks followed. For a path that does not exist yet, the real path of its
   * nearest existing ancestor joined with the rest, so a new file under a symlinked directory
   * that leads out is still seen as outside.
   */
  real: string;
  /** The real path escapes the workspace root. */
  outside: boolean;
  /** How to show the path: the real path, relative to the root when inside, absolute otherwise. */
  display: string;
};

export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

export function displayPath(root: string, target: string): string {
  if (!isInside(root, target)) return target;
  return path.relative(root, target) || '.';
}

export async function resolvePath(root: string, input: string): Promise<ResolvedPath> {
  // Models often write ~/x; it means the home directory, never a folder named "~".
  const expanded = input === '~' ? homedir() : input.startsWith('~/') ? path.join(homedir(), input.slice(2)) : input;
  const absolute = path.resolve(root, expanded);
  const real = await realpathOfNearest(absolute);
  const outside = !isInside(root, real);
  return {input, absolute, real, outside, display: displayPath(root, real)};
}

/**
 * Resolves a write's path once per call. The approval check (isOutside, protectedDir), the
 * preview and the run are separate steps on the same arguments object; resolving afresh in each
 * let a symlink swapped in between send the run where the check never looked (a file judged
 * inside, written as ../out/s.txt with no question asked). Keyed by that object, so nothing
 * outlives the call.
 */
export function createCallResolver(): (root: string, input: {path: string}) => Promise<ResolvedPath> {
  const resolved = new WeakMap<object, Promise<ResolvedPath>>();
  return (root, args) => {
    let once = resolved.get(args);
    if (!once) {
      once = resolvePath(root, args.path);
      resolved.set(args, once);
    }
    return once;
  };
}

/** The approval question every path tool asks: does this argument lead out of the workspace? */
export async function isOutsideWorkspace(root: string, input: string): Promise<boolean> {
  return (await resolvePath(root, input)).outside;
}

async function realpathOfNearest(absolute: string): Promise<string> {
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = await realpath(current);
      return rest.length === 0 ? real : path.join(real, ...rest.reverse());
    } catch {
      // Missing (or a dangling symlink): step up until something exists; "/" always does.
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Device files, /proc entries, FIFOs and sockets either never end (/dev/zero, a FIFO with no
 * writer) or lie about their size (/proc): reading one would hang nib or flood the model.
 */
export function specialFileReason(real: string, stats: Stats | null): string | null {
  // /dev/shm is an ordinary tmpfs (a workspace may live there); the type check below still applies.
  const isShm = real === '/dev/shm' || real.startsWith('/dev/shm/');
  if (!isShm && (real === '/dev' || real.startsWith('/dev/'))) return 'a device file';
  if (real === '/proc' || real.startsWith('/proc/') || real.startsWith('/sys/')) return 'a kernel pseudo-file';
  if (!stats) return null;
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device file';
  return null;
}

function hashBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function recordRead(ledger: ReadLedger, real: string, record: ReadRecord): void {
  ledger.set(real, record);
}

/**
 * The stale-read guard. A file may only be overwritten once the agent has read it in this
 * session, and only if its bytes are still those it read: otherwise the model would overwrite
 * changes it has never seen (the person's, a formatter's, another tool's).
 * The hash decides, not the mtime: `touch` or a checkout that restores the same bytes is not a
 * change worth refusing.
 */
export function checkFresh(ledger: ReadLedger, resolved: ResolvedPath, current: Uint8Array): FsResult<void> {
  const record = ledger.get(resolved.real);
  if (!record) {
    return fail(
      'not-read',
      `${resolved.display} exists but has not been read in this session: read it first, then retry, so you do not overwrite content you have not seen.`,
    );
  }
  if (record.size !== current.byteLength || record.hash !== hashBytes(current)) {
    return fail(
      'stale',
      `${resolved.display} has changed on disk since you last read it (someone or something else modified it). Read it again, then redo the change against the current content.`,
    );
  }
  return {ok: true, value: undefined};
}

export type ExistingFile = {bytes: Buffer; stats: Stats};

/** The current bytes of a regular file, null when it does not exist, or why it cannot be used. */
export async function readExisting(resolved: ResolvedPath): Promise<FsResult<ExistingFile | null>> {
  // `real` was free of symlinks when it was resolved; one there now was put there since, and
  // following it would read (and then replace) a file nobody checked. O_NONBLOCK: a FIFO swapped
  // in must not hang the open; the type check below refuses it.
  let handle: FileHandle;
  try {
    handle = await open(resolved.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return {ok: true, value: null};
    if (isCode(error, 'ELOOP')) return changedSinceChecked(resolved);
    return fail('io', `Cannot access ${resolved.display}: ${errorMessage(error)}`);
  }
  try {
    const stats = await handle.stat();
    const special = specialFileReason(resolved.real, stats);
    if (special) return fail('special-file', `${resolved.display} is ${special}; nib does not read or write those.`);
    if (stats.isDirectory()) return fail('is-directory', `${resolved.display} is a directory, not a file.`);
    try {
      return {ok: true, value: {bytes: await handle.readFile(), stats}};
    } catch (error) {
      return fail('io', `Cannot read ${resolved.display}: ${errorMessage(error)}`);
    }
  } finally {
    await handle.close();
  }
}

function changedSinceChecked(resolved: ResolvedPath, now?: string): {ok: false; error: ToolError} {
  const what = now === undefined ? 'it is now a symbolic link' : `it now leads to ${now}`;
  return fail(
    'path-changed',
    `${resolved.display} changed after nib checked it (${what}), so the write could land somewhere nobody approved. Nothing was written. Find out what changed it, then read it again and retry.`,
  );
}

export type AtomicWriteOptions = {
  /** Mode to give the file (an existing file's mode is kept by passing it here). */
  mode?: number;
  /**
   * Runs after the temp file is written and synced, before the rename. Tests make it throw to
   * prove that a failure at the worst moment leaves the original bytes and no temp file behind.
   */
  beforeRename?: (tempPath: string) => void | Promise<void>;
  /**
   * That the target is still what the caller checked: run before the directory is created and
   * again after `beforeRename`, just before the rename (Node has no renameat to pin the
   * directory, so this is as late as it gets). A failure leaves the original and no temp file.
   */
  verify?: () => Promise<FsResult<void>>;
};

/**
 * Writes through a temp file in the same directory (same file system, so the rename is atomic):
 * a reader, a crash or a full disk sees either the old bytes or the new ones, never half a file.
 */
export async function writeAtomic(target: string, bytes: Uint8Array, options: AtomicWriteOptions = {}): Promise<FsResult<Stats>> {
  const directory = path.dirname(target);
  const early = await options.verify?.();
  if (early && !early.ok) return early;
  try {
    await mkdir(directory, {recursive: true});
  } catch (error) {
    return fail('io', `Cannot create directory ${directory}: ${errorMessage(error)}`);
  }
  // Only the start of the name: a target near the 255-byte name limit would otherwise get a temp
  // name over it (ENAMETOOLONG). 32 characters are at most 96 UTF-8 bytes.
  const temp = path.join(directory, `.${path.basename(target).slice(0, 32)}.nib-${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
    try {
      await handle.writeFile(bytes);
      // open()'s mode is filtered by the umask; chmod is not, so an existing 0755 stays 0755.
      if (options.mode !== undefined) await handle.chmod(options.mode & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeRename?.(temp);
    const late = await options.verify?.();
    if (late && !late.ok) {
      await unlink(temp).catch(() => undefined); // gone with a directory that was moved away
      return late;
    }
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined); // it may never have been created
    // The raw message names the temp file ("EACCES … open '.f.txt.nib-…'"), which nobody asked for.
    if (isCode(error, 'EACCES') || isCode(error, 'EPERM') || isCode(error, 'EROFS')) {
      const why = isCode(error, 'EROFS') ? 'the file system is mounted read-only' : 'permission denied';
      return fail(
        'read-only',
        `Cannot write ${target}: the directory ${directory} is not writable (${why}), and nib writes the new version there first and renames it over. Nothing was written; the file is as it was.`,
      );
    }
    return fail('io', `Cannot write ${target}: ${errorMessage(error)}`);
  }
  try {
    return {ok: true, value: await stat(target)};
  } catch (error) {
    return fail('io', `Wrote ${target} but cannot stat it: ${errorMessage(error)}`);
  }
}

export type FileWrite = {
  resolved: ResolvedPath;
  /** The file's bytes now, or null when it does not exist yet. */
  existing: ExistingFile | null;
  bytes: Uint8Array;
  beforeRename?: AtomicWriteOptions['beforeRename'];
};

/**
 * The one path every write/edit takes: atomic write keeping the mode, then the session learns the
 * new bytes so the agent can edit again without re-reading its own write.
 */
export async function commitWrite(ledger: ReadLedger, write: FileWrite): Promise<FsResult<void>> {
  const {resolved} = write;
  const options: AtomicWriteOptions = {
    beforeRename: write.beforeRename,
    // The rename replaces a link at `real` instead of following it, but a link swapped into a
    // parent directory would be followed; and either means the file is not what was checked.
    verify: async () => {
      const now = await realpathOfNearest(resolved.real);
      return now === resolved.real ? {ok: true, value: undefined} : changedSinceChecked(resolved, now);
    },
  };
  if (write.existing) options.mode = write.existing.stats.mode;
  const written = await writeAtomic(write.resolved.real, write.bytes, options);
  if (!written.ok) return written;
  recordRead(ledger, write.resolved.real, {size: written.value.size, mtimeMs: written.value.mtimeMs, hash: hashBytes(write.bytes)});
  return {ok: true, value: undefined};
}

export function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as {code?: unknown}).code === code;
}

