/**
 * Text from the model, a tool or a file reaches a terminal only as text: an escape sequence in it
 * could retitle the window, write the clipboard (OSC 52), clear the screen or hide lines.
 */

const unsafe = /\r(?!\n)|[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f]/g;
const hasUnsafe = new RegExp(unsafe.source); // no g flag: test() must not carry lastIndex over

/**
 * Characters that change what a line seems to say without showing themselves: bidi controls
 * reorder the text around them (a command can read differently from what runs), and zero-width
 * characters hide inside names and paths. Joiners (U+200C, U+200D) are separate: emoji sequences
 * and several scripts need them in prose, but in a command, path or diff they are just as hidden.
 */
const invisible = /[\u061C\u180E\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const invisibleOrJoiner = /[\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const hasInvisible = new RegExp(invisible.source);
const hasInvisibleOrJoiner = new RegExp(invisibleOrJoiner.source);

/** `<U+202E>`: plain ASCII, so it takes the same columns on every terminal. */
const marker = (char: string) => `<U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`;

/**
 * Control characters out, except tab and line breaks: ESC starts every terminal escape sequence,
 * a lone CR lets later text overwrite a line, and C1 controls are escapes on some terminals.
 * Bidi controls and zero-width characters are shown as `<U+XXXX>` markers instead.
 */
export function toTerminalText(text: string): string {
  const safe = hasUnsafe.test(text) ? text.replace(unsafe, '') : text;
  return hasInvisible.test(safe) ? safe.replace(invisible, marker) : safe;
}

/**
 * A command's output as a terminal shows it: a lone CR returns to the line's start, so what
 * follows it replaces the line (a progress bar's latest state, not every state run together).
 * A CR at the very end waits for what comes next; CR LF is a line end. Linear in the text.
 */
export function overwriteLines(text: string): string {
  if (!text.includes('\r')) return text;
  const lines = text.split('\n');
  return lines
    .map((line, index) => {
      // CRs at the end return to a line nothing overwrote (`\r\r\n` from a pty is a line end).
      const pending = index === lines.length - 1 && line.endsWith('\r') ? '\r' : '';
      const body = line.replace(/\r+$/, '');
      return body.slice(body.lastIndexOf('\r') + 1) + pending;
    })
    .join('\n');
}

/**
 * What a person reviews before it runs (a command, a path, a line of a diff): every invisible
 * character as a marker, joiners included. Control characters are left to the caller, which
 * either drops them (toTerminalText) or shows them (the diff view's `·` and `␍`).
 */
export function showInvisible(text: string): string {
  return hasInvisibleOrJoiner.test(text) ? text.replace(invisibleOrJoiner, marker) : text;
}

/**
 * Every string inside `value` made terminal-safe; objects that need no change come back as they
 * are (same reference), so a clean event costs one scan and no copy.
 */
export function terminalSafe<T>(value: T): T {
  if (typeof value === 'string') return toTerminalText(value) as T;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map(item => {
      const safe = terminalSafe(item);
      if (safe !== item) changed = true;
      return safe;
    });
    return (changed ? out : value) as T;
  }
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let out: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const safe = terminalSafe(item);
      if (safe !== item) (out ??= {...(value as Record<string, unknown>)})[key] = safe;
    }
    return (out ?? value) as T;
  }
  return value;
}
