import {useCallback, useRef, useState, type RefObject} from 'react';

/**
 * State a key handler reads and writes. Several keys in one stdin read reach the handler before
 * React re-renders, so the handler reads `ref` (always the latest write); the render reads `value`.
 */
export function useKeyState<T>(initial: T): [ref: RefObject<T>, value: T, set: (next: T) => void] {
  const ref = useRef(initial);
  const [value, setValue] = useState(initial);
  const set = useCallback((next: T) => {
    ref.current = next;
    setValue(next);
  }, []);
  return [ref, value, set];
}
