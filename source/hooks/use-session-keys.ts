import {useInput} from 'ink';
import {useEffect, useRef} from 'react';
import {useKeyState} from './use-key-state.js';

export type SessionKeyOptions = {
  /** A turn is running (Esc and Ctrl+C interrupt it). */
  isBusy: boolean;
  isInputEmpty: boolean;
  /** False while an approval prompt owns the keyboard (it handles Esc itself). */
  isActive: boolean;
  onInterrupt: () => void;
  onClearInput: () => void;
  onExit: () => void;
  onCycleMode: () => void;
  /** How long a first Ctrl+C waits for the second; 2 s. */
  exitWindowMs?: number;
};

/**
 * The keys that work anywhere in a session: Esc interrupts; Ctrl+C interrupts when busy, clears the
 * input when not, and exits on a second press within 2 s; Ctrl+D on an empty input exits;
 * Shift+Tab cycles the approval mode. Returns whether a second Ctrl+C would exit now.
 */
export function useSessionKeys(options: SessionKeyOptions): {isExitArmed: boolean} {
  const {exitWindowMs = 2000} = options;
  // Two presses in one stdin read must not both count as the first.
  const [armed, isExitArmed, arm] = useKeyState(false);
  const disarm = useRef<NodeJS.Timeout | undefined>(undefined);
  useEffect(() => () => clearTimeout(disarm.current), []);

  useInput((input, key) => {
    if (key.ctrl && input === 'c') {
      if (armed.current) return options.onExit();
      if (options.isBusy) options.onInterrupt();
      else options.onClearInput();
      arm(true);
      clearTimeout(disarm.current);
      disarm.current = setTimeout(() => arm(false), exitWindowMs);
      return;
    }
    if (!options.isActive) return;
    if (key.escape && options.isBusy) return options.onInterrupt();
    if (key.ctrl && input === 'd' && options.isInputEmpty) return options.onExit();
    if (key.shift && key.tab) return options.onCycleMode();
  });
  return {isExitArmed};
}
