import {readFile, stat} from 'node:fs/promises';
import {nibDir} from '../config/xdg.js';
import {dirname, join, relative, resolve, sep} from 'node:path';

/**
 * Project instructions for the system prompt: the person's own ~/.config/nib/AGENTS.md first,
 * then AGENTS.md from the git root down to the working directory, so the nearest file comes last
 * and wins where they disagree. A folder with no AGENTS.md contributes its CLAUDE.md instead.
 */

export const INSTRUCTIONS_MAX_BYTES = 32 * 1024;

export type InstructionFile = {path: string; bytes: number};

export type Instructions = {
  /** Ready for buildSystemPrompt's `instructions`: each file under a heading with its path. */
  text: string;
  files: InstructionFile[];
  /** Set when the cap cut something off: say it to the person too. */
  notice: string | null;
};

export async function loadInstructions(options: {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  maxBytes?: number;
}): Promise<Instructions> {
  const maxBytes = options.maxBytes ?? INSTRUCTIONS_MAX_BYTES;
  const paths: string[] = [];
  const personal = join(nibDir(options.env ?? process.env, 'XDG_CONFIG_HOME'), 'AGENTS.md');
  if (await isFile(personal)) paths.push(personal);
  for (const dir of await foldersFromRoot(resolve(options.cwd))) {
    for (const name of ['AGENTS.md', 'CLAUDE.md']) {
      const path = join(dir, name);
      if (await isFile(path)) {
        paths.push(path);
        break;
      }
    }
  }

  const files: InstructionFile[] = [];
  const sections: string[] = [];
  let used = 0;
  let notice: string | null = null;
  for (const path of paths) {
    const content = await readFile(path).catch(() => null);
    if (content === null) continue;
    files.push({path, bytes: content.length});
    if (notice) continue;
    const room = maxBytes - used;
    if (content.length > room) {
      const kept = cutUtf8(content, Math.max(0, room));
      if (kept.length > 0) sections.push(section(path, kept.toString('utf8')));
      used += kept.length;
      notice = `Project instructions were cut at ${Math.round(maxBytes / 1024)} KiB (${path} and any after it are incomplete).`;
      continue;
    }
    sections.push(section(path, content.toString('utf8')));
    used += content.length;
  }
  if (notice) sections.push(`(${notice})`);
  return {text: sections.join('\n\n'), files, notice};
}

/**
 * The instruction files read again (before each prompt): an AGENTS.md that /init wrote, or one
 * edited during the session, reaches the model from the next prompt on. `apply` gets the new
 * text; the result is the line to tell the person, or null when nothing changed.
 */
export function watchInstructions(options: {cwd: string; env?: NodeJS.ProcessEnv; current: string; apply: (text: string) => void}): () => Promise<string | null> {
  let current = options.current;
  return async () => {
    const fresh = await loadInstructions({cwd: options.cwd, ...(options.env ? {env: options.env} : {})});
    if (fresh.text === current) return null;
    current = fresh.text;
    options.apply(fresh.text);
    const names = fresh.files.map(file => relative(options.cwd, file.path) || file.path).join(', ');
    return names ? `Instructions changed (${names}): the model has them from this prompt on.` : 'The instruction files are gone: the model works without them from this prompt on.';
  };
}

function section(path: string, content: string): string {
  return `--- ${path} ---\n${content.trimEnd()}`;
}

/** The git root (nearest folder with a .git) down to cwd; just cwd outside a repository. */
async function foldersFromRoot(cwd: string): Promise<string[]> {
  let root: string | null = null;
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (await exists(join(dir, '.git'))) {
      root = dir;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  if (!root) return [cwd];
  const folders = [root];
  const rest = relative(root, cwd);
  if (rest) {
    let dir = root;
    for (const part of rest.split(sep)) folders.push((dir = join(dir, part)));
  }
  return folders;
}

/** Never cuts a multi-byte character in half. */
function cutUtf8(buffer: Buffer, bytes: number): Buffer {
  let end = Math.min(bytes, buffer.length);
  while (end > 0 && end < buffer.length && (buffer[end]! & 0xc0) === 0x80) end--;
  return buffer.subarray(0, end);
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null)) !== null;
}

/** The request /init sends: the model writes the file through the normal write approval. */
export const INIT_PROMPT = [
  'Create a starter AGENTS.md at the root of this repository for coding agents working in it.',
  'First look around: list the files, read the README, the package or build manifest, and the test setup.',
  'Then write AGENTS.md with the write tool. Keep it short and concrete: what the project is, how to',
  'install, build, run and test it (exact commands), the layout of the main folders, and the code style',
  'and conventions you can see. Do not invent anything you did not find. If AGENTS.md already exists,',
  'read it and propose improvements with edit instead of replacing it.',
].join(' ');
