import {useStdout} from 'ink';
import {useCallback, useState} from 'react';

/**
 * Home, erase the screen, then the scrollback (3J; 2J first, because some terminals push the
 * screen into the scrollback on 2J).
 */
const clearScreenAndScrollback = '\u001B[H\u001B[2J\u001B[3J';

/**
 * `/redraw`: the transcript printed again at the current width, for a person who resized and wants
 * it reflowed. A resize never does this by itself, because the only way to avoid a second copy in
 * the scrollback is to clear the scrollback, and that is the person's own history too. Returns a
 * number that changes with each redraw (the transcript's key, so it prints again) and the action.
 */
export function useRedraw(): {readonly count: number; readonly redraw: () => void} {
  const {write} = useStdout();
  const [count, setCount] = useState(0);
  const redraw = useCallback(() => {
    // Ink's write takes its live region off the screen first and puts it back after.
    write(clearScreenAndScrollback);
    setCount(current => current + 1);
  }, [write]);
  return {count, redraw};
}
