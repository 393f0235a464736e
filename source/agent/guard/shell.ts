import type {BashNode} from '@ericcornelissen/bash-parser';

/** One simple command of a shell line, as a rule sees it. */
export type CommandPart = {
  /** Assignments, name and arguments with quotes removed, joined by single spaces. */
  text: string;
  /** Sends output to a file (`>`, `>>`, `&>`, `>& file`): an allow rule for the command does not cover that write. */
  writesFile: boolean;
};

/**
 * Longer lines are not parsed: the parser's time grows faster than the line (100 KB took
 * seconds), and nothing a person would allow by rule is this long.
 */
export const MAX_PARSED_COMMAND = 16 * 1024;

const OUTPUT_REDIRECTS = new Set(['great', 'dgreat', 'clobber', 'andgreat', 'andgreat_dgreat', 'lessgreat']);
/** `>&` and `<&` duplicate a descriptor when the target is digits or `-`, and open a file otherwise. */
const DUPLICATING_REDIRECTS = new Set(['greatand', 'lessand']);

/** A word still holds something that runs code, which the parser left as plain text. */
class Opaque extends Error {}

/**
 * Every simple command a shell line runs: the sides of `&&`, `||`, `;`, `|` and newlines, and the
 * commands inside `$( )`, backticks, loops, conditionals, functions and subshells. A rule must
 * cover each of them, so `git status && rm -rf x` is not let through by `bash(git status)`.
 * null when nib cannot tell what the line runs, so no allow rule can cover it: it does not
 * parse, it is longer than MAX_PARSED_COMMAND, or a word still holds a command the parser did not
 * take apart (`${x:-$(cmd)}`, `$((`cmd`))`, `<( )`).
 */
export async function splitCommand(command: string): Promise<CommandPart[] | null> {
  if (command.length > MAX_PARSED_COMMAND) return null;
  // Loaded on the first judged command: the parser is not needed to start or to answer.
  const {default: parse} = await import('@ericcornelissen/bash-parser');
  try {
    const parts: CommandPart[] = [];
    visit(parse(command, {mode: 'bash'}), parts);
    return parts;
  } catch {
    return null;
  }
}

function visit(node: unknown, parts: CommandPart[]): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, parts);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const record = node as BashNode;
  if (record.type === 'Command') parts.push(describe(record));
  if (record.type === 'Word' || record.type === 'AssignmentWord') checkWord(record);
  for (const [key, value] of Object.entries(record)) {
    if (key !== 'loc') visit(value, parts);
  }
}

/**
 * Throws Opaque when the word runs code the parser did not split out. Command substitutions it
 * did parse are cut out first (their commands are visited as parts); what is left must hold no
 * `$(`, backtick, `<(` or `>(`, also not inside `${ }` or `$(( ))`, where the parser leaves them.
 */
function checkWord(word: BashNode): void {
  const text = typeof word.text === 'string' ? word.text : '';
  const expansions = asList(word['expansion']) as BashNode[];
  // Without expansions the parser has already removed the quotes, so nothing in the text can be
  // told apart as quoted: any sign of a substitution counts.
  if (expansions.length === 0) {
    if (/\$\(|`|[<>]\(/.test(text)) throw new Opaque();
    return;
  }
  let rest = text;
  const parsed = expansions
    .filter(expansion => expansion.type === 'CommandExpansion')
    .map(expansion => expansion['loc'] as {start: number; end: number} | undefined)
    .sort((a, b) => (b?.start ?? 0) - (a?.start ?? 0));
  for (const range of parsed) {
    if (!range) throw new Opaque();
    rest = rest.slice(0, range.start) + ' '.repeat(range.end - range.start + 1) + rest.slice(range.end + 1);
  }
  if (runsCode(rest)) throw new Opaque();
}

/** Scans shell text the way bash quotes it: single quotes hide everything, double quotes hide `<(`. */
function runsCode(text: string): boolean {
  let quote: '' | "'" | '"' = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote === "'") {
      if (char === "'") quote = '';
      continue;
    }
    if (char === '\\') {
      i++;
      continue;
    }
    if (char === '`') return true;
    if (char === '$' && text[i + 1] === '(') {
      // `$((` opens arithmetic, harmless unless what is inside runs code, which the scan goes on to see.
      if (text[i + 2] !== '(') return true;
      i += 2;
      continue;
    }
    if (quote === '"') {
      if (char === '"') quote = '';
      continue;
    }
    if ((char === '<' || char === '>') && text[i + 1] === '(') return true;
    if (char === "'" || char === '"') quote = char;
  }
  return false;
}

function describe(command: BashNode): CommandPart {
  const words: string[] = [];
  let writesFile = false;
  const items = [...asList(command['prefix']), ...(command['name'] ? [command['name']] : []), ...asList(command['suffix'])];
  for (const item of items as BashNode[]) {
    if (item.type === 'Redirect') {
      const op = (item['op'] as BashNode | undefined)?.type ?? '';
      const target = (item['file'] as BashNode | undefined)?.text ?? '';
      const opensFile = OUTPUT_REDIRECTS.has(op) || (DUPLICATING_REDIRECTS.has(op) && !/^(\d+|-)$/.test(target));
      if (opensFile && target !== '/dev/null') writesFile = true;
      continue;
    }
    if (typeof item.text === 'string') words.push(item.text);
  }
  return {text: words.join(' '), writesFile};
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
