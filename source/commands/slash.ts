import {APPROVAL_MODES, isApprovalMode} from '../core/approval-mode.js';
import {commandCall} from '../core/text.js';
import {note, type CommandContext, type SlashCommand} from './context.js';
import {permissionCommands} from './permission-commands.js';
import {runMcpCommand} from './mcp.js';
import {redrawCommand} from './redraw.js';
import {sessionCommands} from './session-commands.js';
import {modelCommands} from './model-commands.js';

export type {CommandContext, SlashCommand} from './context.js';

/** Every slash command. Adding one is adding an entry here. */
export const slashCommands: readonly SlashCommand[] = [
  {
    name: 'help',
    description: 'commands and keys',
    run: (_arg, context) =>
      note(
        context,
        [
          ...(context.commands ?? slashCommands).map(command => `/${command.name}${command.args ? ` ${command.args}` : ''}  ${command.description}`),
          '',
          'enter send · ctrl+j or a trailing \\ new line · ↑/↓ history · ctrl+g edit in $EDITOR',
          'esc interrupt · esc twice on an empty prompt rewind · ctrl+c interrupt / clear / twice to exit · ctrl+d exit · shift+tab cycle mode',
          '@path attach a file · !command run a shell command yourself',
        ].join('\n'),
      ),
  },
  {
    name: 'clear',
    description: 'start a fresh conversation',
    run: async (_arg, context) => {
      const cleared = await context.session.clear();
      // Said, so the history shows where one conversation ends and the next begins.
      note(context, cleared.ok ? 'New conversation. The one before is kept: /resume lists it.' : cleared.error);
    },
  },
  ...modelCommands,
  {
    name: 'mode',
    args: 'MODE',
    description: `approval mode (${APPROVAL_MODES.join(', ')}); clears "always" answers`,
    run: (arg, context) => {
      if (!arg) return note(context, `mode: ${context.state.mode} (one of ${APPROVAL_MODES.join(', ')})`);
      if (!isApprovalMode(arg)) return note(context, `unknown mode "${arg}": use one of ${APPROVAL_MODES.join(', ')}`);
      context.session.setMode(arg);
      note(context, `mode set to ${arg}${context.state.alwaysTools.length + context.state.alwaysRules.length > 0 ? '; "always" answers cleared' : ''}`);
    },
  },
  {
    name: 'tools',
    description: 'the tools the model can use',
    run: (_arg, context) =>
      note(
        context,
        context.session.tools.describe().map(tool => `${tool.name.padEnd(7)} ${tool.kind.padEnd(6)} ${tool.description.split(/(?<=\.)\s/, 1)[0]}`).join('\n'),
      ),
  },
  {
    name: 'usage',
    description: 'tokens used in this session',
    run: (_arg, context) => {
      const {usage} = context.state;
      note(
        context,
        `tokens: ${usage.promptTokens} in, ${usage.completionTokens} out; last request ${usage.lastPromptTokens} in`,
      );
    },
  },
  ...sessionCommands,
  ...permissionCommands,
  {
    name: 'mcp',
    args: '[restart NAME | approve]',
    description: 'MCP servers: status, tools, last error; restart one; approve the project\'s',
    run: async (arg, context) =>
      note(context, context.session.mcp ? await runMcpCommand(arg, context.session.mcp) : 'no MCP servers configured (add "mcpServers" to the config file or a .mcp.json in the workspace)'),
  },
  redrawCommand,
  {name: 'exit', description: 'leave nib', run: (_arg, context) => context.exit()},
];

/** Runs `text` as a slash command. False when it is not one (it goes to the model then). */
export async function runSlashCommand(text: string, context: CommandContext): Promise<boolean> {
  const commands = context.commands ?? slashCommands;
  const call = commandCall(text);
  if (!call) return false;
  const command = commands.find(candidate => candidate.name === call.name);
  if (!command) {
    note(context, `unknown command /${call.name}: /help lists them`);
    return true;
  }
  await command.run(call.args, context);
  return true;
}
