import {useCallback, useInsertionEffect, useRef} from 'react';

/**
 * A function that keeps its identity across renders and calls the latest `fn`. Handed to a
 * memoized child in place of a callback that closes over state, it spares the child a re-render
 * on every frame of a streaming answer. Call it from events, not during render.
 */
export function useStableCallback<Args extends unknown[], Result>(fn: (...args: Args) => Result): (...args: Args) => Result {
  const latest = useRef(fn);
  useInsertionEffect(() => {
    latest.current = fn;
  });
  return useCallback((...args: Args) => latest.current(...args), []);
}
