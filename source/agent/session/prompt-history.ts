import {appendFile, mkdir, readFile} from 'node:fs/promises';
import {dirname, join} from 'node:path';
import {nibDir} from '../config/xdg.js';

/** Where prompt history persists: `$XDG_STATE_HOME/nib/history`, or `~/.local/state/nib/history`. */
export function promptHistoryPath(env: NodeJS.ProcessEnv): string {
  return join(nibDir(env, 'XDG_STATE_HOME'), 'history');
}

/** Prompt history on disk: one JSON string per line, so multi-line prompts survive. */
export type PromptHistory = {
  load: () => Promise<string[]>;
  append: (entry: string) => Promise<void>;
};

const keptEntries = 500;

/**
 * `redact` masks secrets before an entry is written: a key pasted into a prompt must not land in
 * a file in clear, as it never does in the session log.
 */
export function createPromptHistory(path: string, redact: (text: string) => string = text => text): PromptHistory {
  return {
    async load() {
      try {
        const text = await readFile(path, 'utf8');
        return text
          .split('\n')
          .flatMap(line => {
            try {
              const entry: unknown = JSON.parse(line);
              return typeof entry === 'string' ? [entry] : [];
            } catch {
              // A torn last line (two nib sessions writing at once) loses one entry, not the file.
              return [];
            }
          })
          .slice(-keptEntries);
      } catch {
        // No history yet (or unreadable): start empty; history is a convenience, never fatal.
        return [];
      }
    },
    async append(entry) {
      try {
        await mkdir(dirname(path), {recursive: true});
        await appendFile(path, `${JSON.stringify(redact(entry))}\n`, {mode: 0o600});
      } catch {
        // A read-only home must not stop a session; the entry is still in memory.
      }
    },
  };
}
