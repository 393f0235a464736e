import type {BashNode} from '@ericcornelissen/bash-parser';

/** One simple command of a shell line, as a rule sees it. */
export type CommandPart = {
  /** Assignments, name and arguments with quotes removed, joined by single spaces. */
  text: string;
  /** Sends output to a file (`>`, `>>`, `&>`): an allow rule for the command does not cover that write. */
  writesFile: boolean;
};

const OUTPUT_REDIRECTS = new Set(['great', 'dgreat', 'clobber', 'andgreat', 'andgreat_dgreat', 'lessgreat']);

/**
 * Every simple command a shell line runs: the sides of `&&`, `||`, `;`, `|` and newlines, and the
 * commands inside `$( )`, backticks, loops, conditionals, functions and subshells. A rule must
 * cover each of them, so `git status && rm -rf x` is not let through by `bash(git status)`.
 * null when the line does not parse (or uses syntax the parser lacks, like `<( )`): nib cannot
 * tell what it runs, so no allow rule can cover it.
 */
export async function splitCommand(command: string): Promise<CommandPart[] | null> {
  // Loaded on the first judged command: the parser is not needed to start or to answer.
  const {default: parse} = await import('@ericcornelissen/bash-parser');
  let ast: BashNode;
  try {
    ast = parse(command, {mode: 'bash'});
  } catch {
    return null;
  }
  const parts: CommandPart[] = [];
  visit(ast, parts);
  return parts;
}

function visit(node: unknown, parts: CommandPart[]): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, parts);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const record = node as BashNode;
  if (record.type === 'Command') parts.push(describe(record));
  for (const [key, value] of Object.entries(record)) {
    if (key !== 'loc') visit(value, parts);
  }
}

function describe(command: BashNode): CommandPart {
  const words: string[] = [];
  let writesFile = false;
  const items = [...asList(command['prefix']), ...(command['name'] ? [command['name']] : []), ...asList(command['suffix'])];
  for (const item of items as BashNode[]) {
    if (item.type === 'Redirect') {
      const op = (item['op'] as BashNode | undefined)?.type ?? '';
      const target = (item['file'] as BashNode | undefined)?.text ?? '';
      if (OUTPUT_REDIRECTS.has(op) && target !== '/dev/null') writesFile = true;
      continue;
    }
    if (typeof item.text === 'string') words.push(item.text);
  }
  return {text: words.join(' '), writesFile};
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
