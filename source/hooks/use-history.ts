import {useCallback, useState} from 'react';
import type {PromptHistory} from '../agent/session/prompt-history.js';

/**
 * The prompt history, starting from what was loaded before the session opened (so Up works from
 * the first key), appended on every sent prompt (a repeat of the last one is kept once).
 */
export function useHistory(store: PromptHistory, initial: readonly string[]): {entries: readonly string[]; add: (entry: string) => void} {
  const [entries, setEntries] = useState<readonly string[]>(initial);
  const add = useCallback(
    (entry: string) => {
      setEntries(current => (current.at(-1) === entry ? current : [...current, entry]));
      void store.append(entry);
    },
    [store],
  );
  return {entries, add};
}
