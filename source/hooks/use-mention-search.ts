import {useCallback, useEffect, useMemo, useReducer, useRef} from 'react';
import {MentionIndex} from '../agent/mention-index.js';

/**
 * The `@` completion's search for the prompt line. The workspace is walked the first time an `@`
 * is typed (not at start: most sessions never mention a file, and start-up time is a feature),
 * and again after a turn or a command may have changed files. Until a walk finishes the list is
 * empty; the finished walk redraws the prompt with the paths.
 */
export function useMentionSearch(root: string, busy: boolean): (query: string) => readonly string[] {
  const [version, bump] = useReducer((count: number) => count + 1, 0);
  const index = useMemo(() => new MentionIndex(root, bump), [root]);
  const wasBusy = useRef(busy);
  useEffect(() => {
    if (wasBusy.current && !busy) index.invalidate();
    wasBusy.current = busy;
  }, [busy, index]);
  // A new function after each walk, so the prompt line searches again with the new paths.
  return useCallback(
    (query: string) => {
      void index.build();
      return index.search(query);
    },
    [index, version],
  );
}
