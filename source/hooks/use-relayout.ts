import {useStdout} from 'ink';
import {useEffect, useRef, useState} from 'react';

const settleMs = 150;
/** Clear the screen and home the cursor; scrollback (the person's own history) is left alone. */
const clearScreen = '\u001B[2J\u001B[H';

/**
 * When the terminal changes width, lines already printed reflow and Ink's live region can no
 * longer erase exactly what it drew, leaving torn copies behind. Once the width settles this
 * clears the screen and returns a new number, which the transcript uses as its key so it prints
 * again at the new width.
 */
export function useRelayout(columns: number): number {
  const {stdout} = useStdout();
  const [count, setCount] = useState(0);
  const drawnAt = useRef(columns);
  useEffect(() => {
    if (columns === drawnAt.current) return;
    const timer = setTimeout(() => {
      drawnAt.current = columns;
      stdout.write(clearScreen);
      setCount(current => current + 1);
    }, settleMs);
    return () => clearTimeout(timer);
  }, [columns, stdout]);
  return count;
}
