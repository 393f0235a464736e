/**
 * How `@path` mentions are written in a prompt. Pure syntax, shared by the prompt line (which
 * completes them) and the agent (which attaches the files).
 */

export type Mention = {
  /** The path as written, without the `@` (and without quotes for `@"a b.txt"`). */
  path: string;
  /** Where `@…` starts and ends in the prompt. */
  start: number;
  end: number;
};

// `@` at the start or after whitespace, so an e-mail address or `npm i pkg@1` is not a mention.
const MENTION = /(^|\s)@(?:"([^"\n]+)"|([^\s"]+))/g;

export function findMentions(text: string): Mention[] {
  const found: Mention[] = [];
  for (const match of text.matchAll(MENTION)) {
    const start = match.index + match[1]!.length;
    found.push({path: match[2] ?? match[3]!, start, end: match.index + match[0].length});
  }
  return found;
}

/** How a completion writes a path back into the prompt: quoted when it has a space. */
export function mentionText(path: string): string {
  return /\s/.test(path) ? `@"${path}"` : `@${path}`;
}

/** The mention being typed at the end of `value` (where the cursor is), or null. */
export function typingMention(value: string): Mention | null {
  const match = /(^|\s)@("?)([^\s"]*)$/.exec(value);
  if (!match) return null;
  const start = match.index + match[1]!.length;
  return {path: match[3]!, start, end: value.length};
}
