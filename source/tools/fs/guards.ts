import {constants} from 'node:fs';
import {access, stat} from 'node:fs/promises';
import path from 'node:path';
import {errorMessage} from '../../core/result.js';
import {fail, isCode, isInside, type ExistingFile, type FsResult, type ResolvedPath} from './workspace.js';

// The two checks that stop a write the person did not mean to allow, whatever the approval mode.

/**
 * Directories that hold a version-control system's own state. Writing there changes what the
 * tool itself runs (a `.git/config` with `core.fsmonitor`, a hook), so no mode covers it.
 */
const VCS_DIRS = new Set(['.git', '.hg', '.svn', '.jj', '.bzr', '_darcs', '.pijul', '.fslckout', '_fossil_', 'cvs']);

/** Whether a directory entry's name is a version-control directory (any case, as on macOS). */
export function isVcsDirName(name: string): boolean {
  return VCS_DIRS.has(name.toLowerCase());
}

/**
 * The version-control directory a path lies in (or is), or null. Both the path as written and
 * its real path are checked, so neither a symlink into `.git` nor `.GIT` on a case-insensitive
 * file system gets past it.
 */
export function vcsDirOf(root: string, resolved: ResolvedPath): string | null {
  for (const candidate of [resolved.absolute, resolved.real]) {
    const relative = isInside(root, candidate) ? path.relative(root, candidate) : candidate;
    const hit = relative.split(path.sep).find(isVcsDirName);
    if (hit) return hit;
  }
  return null;
}

/**
 * nib's own project files at the workspace root: `.nib/` holds allow rules, hooks and custom
 * commands, `.mcp.json` starts servers. A model that writes them plants commands for the next
 * start, so, like `.git/`, no mode covers a write there.
 */
const NIB_FILES = new Set(['.nib', '.mcp.json']);

/** `.nib` or `.mcp.json` (any case): nib's own settings in a workspace. */
export function isNibFileName(name: string): boolean {
  return NIB_FILES.has(name.toLowerCase());
}

/** The nib settings entry (`.nib` or `.mcp.json`) a path lies in or is, or null. */
export function nibFileOf(root: string, resolved: ResolvedPath): string | null {
  for (const candidate of [resolved.absolute, resolved.real]) {
    if (!isInside(root, candidate)) continue;
    const first = path.relative(root, candidate).split(path.sep)[0]!;
    if (isNibFileName(first)) return first;
  }
  return null;
}

/** What write and edit never do unasked: the version-control directory or nib file a path lands in. */
export function protectedOf(root: string, resolved: ResolvedPath): string | null {
  return vcsDirOf(root, resolved) ?? nibFileOf(root, resolved);
}

/**
 * Whether write/edit may replace `resolved` (or create it). The atomic rename only needs the
 * directory to be writable, so without this check a 0444 file would be replaced and keep its
 * 0444 mode: the person's "do not touch" would be silently ignored.
 * The rule: the file (for a new file, its nearest existing directory) must pass access(W_OK)
 * and must have at least one write bit set. The second half is what holds for root, whom
 * access() always lets write. An existing file's directory must pass too: the new version is
 * written beside the file and renamed over it, so a 0555 directory failed at the temp file, with
 * a message naming that file.
 */
export async function checkWritable(resolved: ResolvedPath, existing: ExistingFile | null): Promise<FsResult<void>> {
  if (existing) {
    const file = await isWritable(resolved.real, existing.stats.mode);
    if (!file.ok) return file;
    if (!file.value.writable) {
      return fail(
        'read-only',
        `${resolved.display} is read-only${file.value.why}: you have no write permission on it, so nib will not change it. If it should change, ask the person to make it writable first (chmod u+w).`,
      );
    }
  }
  const directory = existing ? path.dirname(resolved.real) : await nearestExisting(path.dirname(resolved.real));
  const dir = await isWritable(directory);
  if (!dir.ok) return dir;
  if (dir.value.writable) return {ok: true, value: undefined};
  if (existing) {
    return fail(
      'read-only',
      `${resolved.display} cannot be changed: its directory ${directory} is not writable${dir.value.why}, and nib replaces a file by writing the new version beside it and renaming it over. The file is unchanged. If it should change, ask the person to make the directory writable (chmod u+w).`,
    );
  }
  return fail(
    'read-only',
    `Cannot create ${resolved.display}: the directory ${directory} is not writable${dir.value.why}, so nib will not add files to it. Ask the person to change its permissions if it should.`,
  );
}

/** access(W_OK) and at least one write bit; `why` notes a read-only file system. */
async function isWritable(target: string, knownMode?: number): Promise<FsResult<{writable: boolean; why: string}>> {
  try {
    const mode = knownMode ?? (await stat(target)).mode;
    await access(target, constants.W_OK);
    if ((mode & 0o222) === 0) throw Object.assign(new Error('no write bit'), {code: 'EACCES'});
  } catch (error) {
    if (!isCode(error, 'EACCES') && !isCode(error, 'EPERM') && !isCode(error, 'EROFS')) {
      return fail('io', `Cannot check write permission on ${target}: ${errorMessage(error)}`);
    }
    return {ok: true, value: {writable: false, why: isCode(error, 'EROFS') ? ' (the file system is mounted read-only)' : ''}};
  }
  return {ok: true, value: {writable: true, why: ''}};
}

async function nearestExisting(directory: string): Promise<string> {
  let current = directory;
  for (;;) {
    try {
      await stat(current);
      return current;
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}
