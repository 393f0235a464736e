import {readdir, readFile} from 'node:fs/promises';
import path from 'node:path';
import {commandCall, firstLine} from '../core/text.js';

/**
 * Custom commands: Markdown prompts in `.nib/commands/` (the project's) and
 * `$XDG_CONFIG_HOME/nib/commands/` (the person's), in the format Claude Code reads from
 * `.claude/commands/`, so existing files can be copied over: the file name is the command,
 * optional YAML front matter (`description`, `argument-hint`; other keys are accepted and
 * ignored), and the body is the prompt with `$ARGUMENTS` and `$1`…`$9` filled in.
 */

export type CustomCommand = {
  name: string;
  description: string;
  /** Placeholder for the arguments in the menu (`argument-hint`). */
  args?: string;
  body: string;
  scope: 'project' | 'user';
  file: string;
};

export type LoadedCommands = {commands: CustomCommand[]; notices: string[]};

/** Names the built-in commands own: a file named like one could never be run. */
export async function loadCustomCommands(options: {root: string; configDir: string; builtIns: readonly string[]}): Promise<LoadedCommands> {
  const notices: string[] = [];
  const user = await loadDir(path.join(options.configDir, 'commands'), 'user', notices);
  const project = await loadDir(path.join(options.root, '.nib', 'commands'), 'project', notices);
  const byName = new Map<string, CustomCommand>();
  for (const command of user) byName.set(command.name, command);
  for (const command of project) {
    const mine = byName.get(command.name);
    if (mine) notices.push(`/${command.name}: the project's ${path.relative(options.root, command.file)} overrides your ${mine.file}`);
    byName.set(command.name, command);
  }
  for (const name of options.builtIns) {
    const shadowed = byName.get(name);
    if (!shadowed) continue;
    notices.push(`/${name} is a built-in command; ${shadowed.file} is not used (rename it)`);
    byName.delete(name);
  }
  return {commands: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), notices};
}

async function loadDir(dir: string, scope: CustomCommand['scope'], notices: string[]): Promise<CustomCommand[]> {
  let files: string[];
  try {
    // Subfolders only group files, as in Claude Code: `frontend/component.md` is `/component`.
    files = (await readdir(dir, {recursive: true})).filter(file => file.endsWith('.md')).sort();
  } catch {
    return []; // no folder, no commands
  }
  const found = new Map<string, CustomCommand>();
  for (const file of files) {
    const full = path.join(dir, file);
    const name = path.basename(file, '.md');
    if (!/^[\w.-]+$/.test(name)) {
      notices.push(`${full}: a command name may use letters, digits, "-", "_" and "." only; not loaded`);
      continue;
    }
    let text: string;
    try {
      text = await readFile(full, 'utf8');
    } catch {
      continue; // a folder named x.md, or unreadable: nothing to offer
    }
    const parsed = await parseCommandFile(text);
    if (!parsed.ok) {
      notices.push(`${full}: ${parsed.error}; not loaded`);
      continue;
    }
    const earlier = found.get(name);
    if (earlier) notices.push(`/${name}: ${full} has the same name as ${earlier.file}; the first is used`);
    else found.set(name, {name, scope, file: full, ...parsed.value});
  }
  return [...found.values()];
}

type ParsedFile = {description: string; args?: string; body: string};

export async function parseCommandFile(text: string): Promise<{ok: true; value: ParsedFile} | {ok: false; error: string}> {
  // Read as UTF-8, a binary file (or another encoding) comes with NULs or replacement characters.
  if (/[\u0000\uFFFD]/.test(text)) return {ok: false, error: 'it is binary, or not UTF-8 text'};
  const source = text.replace(/^\uFEFF/, '');
  const front = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(source);
  const body = (front ? source.slice(front[0].length) : source).trim();
  if (body === '') return {ok: false, error: 'it has no text to send'};
  let fields: Record<string, unknown> = {};
  if (front) {
    // Loaded only for files that have front matter.
    const {parseYaml} = await import('./front-matter.js');
    try {
      const value: unknown = parseYaml(front[1]!);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) fields = value as Record<string, unknown>;
      else if (value !== null) return {ok: false, error: 'the front matter is not a list of "key: value" lines'};
    } catch (error) {
      // Claude Code's files are often not strict YAML (`description: Fix issue: parse it`,
      // `argument-hint: [list|save] [name]`): read as `key: value` lines, each value as written.
      const lines = plainLines(front[1]!);
      if (!lines) return {ok: false, error: `the front matter is not valid YAML (${(error instanceof Error ? error.message : String(error)).split('\n', 1)[0]})`};
      fields = lines;
    }
  }
  const field = (key: string) => {
    const value = fields[key];
    if (typeof value === 'string' || typeof value === 'number') return String(value).trim() || undefined;
    // `argument-hint: [message]` is a YAML list: shown as written.
    if (Array.isArray(value) && value.every(item => typeof item === 'string' || typeof item === 'number')) return value.map(item => `[${item}]`).join(' ') || undefined;
    return undefined;
  };
  const description = field('description') ?? firstLine(body, 60);
  const args = field('argument-hint');
  return {ok: true, value: {description, ...(args ? {args} : {}), body}};
}

/**
 * Front matter as `key: value` lines (blank lines and # comments skipped, and indented lines under
 * a key, such as a list of allowed tools, which nib does not use); null when a line is none of these.
 */
function plainLines(text: string): Record<string, string> | null {
  const fields: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (/^\s/.test(line) && Object.keys(fields).length > 0) continue;
    const match = /^([\w-]+):[ \t]*(.*)$/.exec(line);
    if (!match) return null;
    fields[match[1]!] = match[2]!.trim().replace(/^(["'])(.*)\1$/, '$2');
  }
  return fields;
}

/**
 * The prompt a command sends. Arguments the body has no placeholder for are added at the end, so
 * what was typed after the command is never silently dropped.
 */
export function expandCustomCommand(command: Pick<CustomCommand, 'body'>, args: string): string {
  const trimmed = args.trim();
  const words = [...trimmed.matchAll(WORD)];
  let all = false;
  let last = 0;
  const used = new Set<number>();
  const body = command.body.replace(/\$(ARGUMENTS|[1-9])/g, (_, which: string, at: number, text: string) => {
    if (which === 'ARGUMENTS') {
      all = true;
      return trimmed;
    }
    const n = Number(which);
    last = Math.max(last, n);
    used.add(n);
    const word = words[n - 1] ? wordOf(words[n - 1]!) : '';
    // `@$1` with a path that has a space: quoted, or the mention would stop at the space.
    return text[at - 1] === '@' && /\s/.test(word) && !word.includes('"') ? `"${word}"` : word;
  });
  // What no placeholder took, as typed: skipped words before the last one used, then all after it.
  const skipped = all ? [] : words.slice(0, last).filter((_, index) => !used.has(index + 1)).map(word => word[0]);
  const tail = all ? '' : last === 0 ? trimmed : words[last] ? trimmed.slice(words[last]!.index).trim() : '';
  const rest = [...skipped, ...(tail ? [tail] : [])].join(' ');
  return asModelText(rest === '' ? body : `${body}\n\nArguments: ${rest}`);
}

/**
 * A command file is text for the model, never the person's `!command`: a body starting with `!`
 * (a cloned project's file, say) would otherwise run in the shell with no approval. The leading
 * space keeps the session from reading it as one and costs the model nothing.
 */
function asModelText(text: string): string {
  return text.startsWith('!') ? ` ${text}` : text;
}

/** A word, with "double" or 'single' quotes keeping spaces together, as a shell would. */
const WORD = /"([^"]*)"|'([^']*)'|(\S+)/g;
const wordOf = (match: RegExpMatchArray) => match[1] ?? match[2] ?? match[3]!;

/** `/name args` when `name` is one of the commands; the expanded prompt, or null when it is not one. */
export function expandCustomPrompt(text: string, commands: readonly CustomCommand[]): string | null {
  const call = commandCall(text);
  const command = call && commands.find(candidate => candidate.name === call.name);
  return command ? expandCustomCommand(command, call.args) : null;
}
