import {useRef, useState} from 'react';
import type {SlashCommand} from '../commands/slash.js';
import {useStableCallback} from './use-stable-callback.js';
import {within} from '../core/within.js';

export type LoadCommands = () => Promise<{commands: SlashCommand[]; notices: string[]}>;

/** How long a reload may take before the commands as they were are used. */
const LOAD_WAIT_MS = 1000;

/**
 * The slash commands on offer. With `load`, the custom ones are read again from their folders
 * when the `/` menu opens and before a slash command runs, so a command file added, edited or
 * removed during the session counts at once; a problem with a file is said once (`said` holds
 * those said at start).
 */
export function useCommands(initial: readonly SlashCommand[], load: LoadCommands | undefined, say: (text: string) => void, said: readonly string[] = []) {
  const [commands, setCommands] = useState(initial);
  const told = useRef(new Set(said));
  const reload = useStableCallback(async (): Promise<readonly SlashCommand[]> => {
    if (!load) return commands;
    // A folder that does not answer (a hung network home) must not hold the prompts behind it.
    const fresh = await within(load().catch(() => null), LOAD_WAIT_MS);
    if (!fresh) return commands;
    for (const notice of fresh.notices) {
      if (told.current.has(notice)) continue;
      told.current.add(notice);
      say(notice);
    }
    setCommands(fresh.commands);
    return fresh.commands;
  });
  return {commands, reload};
}
