/** Text from the wire made safe to keep: arguments as JSON text, deltas as whole characters. */

/**
 * Arguments some servers send as an object, back to the JSON text the wire defines. Nesting deep
 * enough to overflow JSON.stringify's recursion becomes a string the tool rejects as not an
 * object, so the model hears what was wrong instead of the turn failing.
 */
export function argumentsText(args: unknown): string {
  try {
    return JSON.stringify(args);
  } catch {
    return JSON.stringify('arguments nested too deeply to read');
  }
}

// Without the `u` flag a regex sees UTF-16 code units, so it can find halves of pairs.
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Some servers cut text between the two halves of a surrogate pair (an emoji), each half escaped
 * in its own delta. A trailing high half waits for the next piece; whatever cannot pair becomes
 * U+FFFD. No delta, and so no screen, JSONL line or log, ever carries a lone surrogate; a high half
 * still waiting when the stream ends is dropped (half a character the server never finished).
 */
export function createPairJoiner(): {join: (piece: string) => string} {
  let held = '';
  return {
    join(piece) {
      let value = held + piece;
      held = '';
      const last = value.charCodeAt(value.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        held = value.slice(-1);
        value = value.slice(0, -1);
      }
      return value.replace(loneSurrogate, '\uFFFD');
    },
  };
}
