import {useInput} from 'ink';
import {useEffect, useRef} from 'react';
import {useKeyState} from './use-key-state.js';

export type SessionKeyOptions = {
  /** A turn is running (Esc and Ctrl+C interrupt it). */
  isBusy: boolean;
  isInputEmpty: boolean;
  /** False while an approval prompt owns the keyboard (it handles Esc itself). */
  isActive: boolean;
  /** A completion list is open under the prompt: Esc closes it, and nothing else. */
  isListOpen?: boolean;
  onInterrupt: () => void;
  onClearInput: () => void;
  onExit: () => void;
  onCycleMode: () => void;
  /** Esc twice on an empty prompt while idle: the rewind list. */
  onRewind?: () => void;
  /** How long a first Ctrl+C waits for the second; 2 s. */
  exitWindowMs?: number;
  /** How soon a second Esc must follow the first to mean rewind; 600 ms. */
  escapeWindowMs?: number;
};

/**
 * The keys that work anywhere in a session: Esc interrupts; Ctrl+C interrupts when busy, clears the
 * input when not, and exits on a second press within 2 s if the input is empty (any other key
 * typed in between disarms it); Ctrl+D on an empty input exits;
 * Shift+Tab cycles the approval mode; Esc twice on an empty, idle prompt opens the rewind list.
 * Returns whether a second Ctrl+C would exit now.
 */
export function useSessionKeys(options: SessionKeyOptions): {isExitArmed: boolean} {
  const {exitWindowMs = 2000, escapeWindowMs = 600} = options;
  const lastEscape = useRef(0);
  // Two presses in one stdin read must not both count as the first.
  const [armed, isExitArmed, arm] = useKeyState(false);
  const disarm = useRef<NodeJS.Timeout | undefined>(undefined);
  useEffect(() => () => clearTimeout(disarm.current), []);

  useInput((input, key) => {
    if (key.ctrl && input === 'c') {
      // Armed, a press still clears what was typed since: it exits only with nothing to lose.
      if (armed.current && options.isInputEmpty) return options.onExit();
      if (options.isBusy && !armed.current) options.onInterrupt();
      else options.onClearInput();
      arm(true);
      clearTimeout(disarm.current);
      disarm.current = setTimeout(() => arm(false), exitWindowMs);
      return;
    }
    // Typing after a Ctrl+C means staying: the exit it armed is off.
    if (armed.current) {
      clearTimeout(disarm.current);
      arm(false);
    }
    if (!options.isActive) return;
    if (key.escape && options.isListOpen) return;
    if (key.escape && options.isBusy) return options.onInterrupt();
    if (key.escape && options.isInputEmpty && options.onRewind) {
      const now = Date.now();
      // Two presses read together arrive as one Esc with meta set.
      if (key.meta || now - lastEscape.current <= escapeWindowMs) {
        lastEscape.current = 0;
        return options.onRewind();
      }
      lastEscape.current = now;
      return;
    }
    if (key.ctrl && input === 'd' && options.isInputEmpty) return options.onExit();
    if (key.shift && key.tab) return options.onCycleMode();
  });
  return {isExitArmed};
}
