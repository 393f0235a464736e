import {APPROVAL_MODES, isApprovalMode, type ApprovalMode} from '../core/approval-mode.js';
import type {UiState} from '../state/reducer.js';
import type {UiAction} from '../state/reducer.js';
import type {ToolKind} from '../core/tool.js';
import type {SessionActions} from '../hooks/use-workspace-session.js';
import {redrawCommand} from './redraw.js';

/** What a slash command may touch. Everything is passed in; commands hold no state. */
export type CommandContext = {
  state: UiState;
  dispatch: (action: UiAction) => void;
  setMode: (mode: ApprovalMode) => void;
  /** Switches the model for the next request. */
  setModel: (model: string) => void;
  /** Starts a fresh conversation. */
  clear: () => void;
  exit: () => void;
  tools: ReadonlyArray<{name: string; kind: ToolKind; description: string}>;
  /** #5: sessions, undo and compaction (absent when the session could not be opened). */
  session?: SessionActions;
  /** Clears the screen and scrollback and prints the transcript again (absent outside the TUI). */
  redraw?: () => void;
};

export type SlashCommand = {
  /** Typed after the `/`. */
  name: string;
  /** Placeholder for the argument, shown in the completion list (`NAME`). */
  args?: string;
  /** One line for the completion list and /help. */
  description: string;
  run: (arg: string, context: CommandContext) => void | Promise<void>;
};

const note = (context: CommandContext, text: string) => context.dispatch({type: 'notice', text});

/** Every slash command. Adding one is adding an entry here. */
export const slashCommands: readonly SlashCommand[] = [
  {
    name: 'help',
    description: 'commands and keys',
    run: (_arg, context) =>
      note(
        context,
        [
          ...slashCommands.map(command => `/${command.name}${command.args ? ` ${command.args}` : ''}  ${command.description}`),
          '',
          'enter send · ctrl+j or a trailing \\ new line · ↑/↓ history · ctrl+g edit in $EDITOR',
          'esc interrupt · ctrl+c interrupt / clear / twice to exit · ctrl+d exit · shift+tab cycle mode',
        ].join('\n'),
      ),
  },
  {name: 'clear', description: 'start a fresh conversation', run: (_arg, context) => context.clear()},
  {
    name: 'model',
    args: 'NAME',
    description: 'switch the model',
    run: (arg, context) => {
      if (!arg) return note(context, `model: ${context.state.model}`);
      context.setModel(arg);
      note(context, `model set to ${arg}`);
    },
  },
  {
    name: 'mode',
    args: 'MODE',
    description: `approval mode (${APPROVAL_MODES.join(', ')}); clears "always" answers`,
    run: (arg, context) => {
      if (!arg) return note(context, `mode: ${context.state.mode} (one of ${APPROVAL_MODES.join(', ')})`);
      if (!isApprovalMode(arg)) return note(context, `unknown mode "${arg}": use one of ${APPROVAL_MODES.join(', ')}`);
      context.setMode(arg);
      note(context, `mode set to ${arg}${context.state.alwaysTools.length > 0 ? '; "always" answers cleared' : ''}`);
    },
  },
  {
    name: 'tools',
    description: 'the tools the model can use',
    run: (_arg, context) =>
      note(
        context,
        context.tools.map(tool => `${tool.name.padEnd(7)} ${tool.kind.padEnd(6)} ${tool.description.split(/(?<=\.)\s/, 1)[0]}`).join('\n'),
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
  // #5: each delegates to the session (hooks/use-workspace-session.tsx).
  {name: 'undo', args: '[N]', description: 'restore files to before the last turn (or turn N); shows the diff first', run: (arg, context) => withSession(context, s => s.undo(arg))},
  {name: 'diff', description: 'everything changed in the workspace in this session', run: (_arg, context) => withSession(context, s => s.diff())},
  {name: 'resume', args: '[ID]', description: 'continue an earlier session of this workspace', run: (arg, context) => withSession(context, s => s.resume(arg))},
  {name: 'sessions', args: '[delete ID]', description: 'list (or delete) this workspace\'s sessions', run: (arg, context) => withSession(context, s => s.sessions(arg))},
  {name: 'compact', description: 'summarise older turns to free context', run: (_arg, context) => withSession(context, s => s.compact())},
  {name: 'init', description: 'ask the model to write a starter AGENTS.md', run: (_arg, context) => withSession(context, s => s.init())},
  redrawCommand,
  {name: 'exit', description: 'leave nib', run: (_arg, context) => context.exit()},
];

function withSession(context: CommandContext, run: (session: SessionActions) => void | Promise<void>) {
  return context.session ? run(context.session) : note(context, 'sessions are not available in this run');
}

/** Runs `text` as a slash command. False when it is not one (it goes to the model then). */
export async function runSlashCommand(text: string, context: CommandContext, commands = slashCommands): Promise<boolean> {
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
  // "/src/app.ts is broken" is a prompt that starts with a path, not a command.
  if (!match || match[1]!.includes('/')) return false;
  const command = commands.find(candidate => candidate.name === match[1]);
  if (!command) {
    note(context, `unknown command /${match[1]}: /help lists them`);
    return true;
  }
  await command.run(match[2]!.trim(), context);
  return true;
}
