import {nibDir} from '../agent/config/xdg.js';
import {expandCustomCommand, loadCustomCommands} from '../agent/custom-commands.js';
import type {SlashCommand} from './context.js';

/**
 * The built-in commands and the person's and project's own, for the slash menu; the notices are
 * for the screen (overrides, files that could not be used).
 */
export async function withCustomCommands(builtIns: readonly SlashCommand[], root: string, env: NodeJS.ProcessEnv): Promise<{commands: SlashCommand[]; notices: string[]}> {
  const loaded = await loadCustomCommands({root, configDir: nibDir(env, 'XDG_CONFIG_HOME'), builtIns: builtIns.map(command => command.name)});
  const custom = loaded.commands.map(
    (command): SlashCommand => ({
      name: command.name,
      ...(command.args ? {args: command.args} : {}),
      description: `${command.description} (${command.scope})`,
      run: (arg, context) => context.submit(expandCustomCommand(command, arg)),
    }),
  );
  return {commands: [...builtIns, ...custom], notices: loaded.notices};
}
