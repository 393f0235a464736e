/** The first non-empty line of `text`, cut to `max` characters with a marker: for badges, notices and log lines. */
export function firstLine(text: string, max = 200): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
