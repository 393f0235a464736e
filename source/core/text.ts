/** The first non-empty line of `text`, cut to `max` characters with a marker: for badges, notices and log lines. */
export function firstLine(text: string, max = 200): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * `/name args` when the prompt reads as a command: a name of letters, digits, `_`, `.`, `-` and
 * `:` (Claude Code's `/frontend:component`). "/src/app.ts is broken" starts with a path and
 * "/** a doc comment" with code: both are prompts. The TUI and print mode ask the same question.
 */
export function commandCall(text: string): {name: string; args: string} | null {
  const match = /^\/([\w.:-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? {name: match[1]!, args: (match[2] ?? '').trim()} : null;
}
