/**
 * Text from the model, a tool or a file reaches a terminal only as text: an escape sequence in it
 * could retitle the window, write the clipboard (OSC 52), clear the screen or hide lines.
 */

const unsafe = /\r(?!\n)|[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f]/g;
const hasUnsafe = new RegExp(unsafe.source); // no g flag: test() must not carry lastIndex over

/**
 * Control characters out, except tab and line breaks: ESC starts every terminal escape sequence,
 * a lone CR lets later text overwrite a line, and C1 controls are escapes on some terminals.
 */
export function toTerminalText(text: string): string {
  return hasUnsafe.test(text) ? text.replace(unsafe, '') : text;
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
