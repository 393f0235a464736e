import type {AgentSession} from '../agent/session/agent-session.js';
import type {UiInput, UiState} from '../state/reducer.js';

/** What a slash command may touch. Everything is passed in; commands hold no state. */
export type CommandContext = {
  state: UiState;
  dispatch: (input: UiInput) => void;
  session: AgentSession;
  /** Sends a prompt to the model (or queues it). */
  submit: (prompt: string) => void;
  exit: () => void;
  /** The screen's width, for lists that fit it. */
  width: number;
  /** Clears the screen and scrollback and prints the transcript again (absent outside the TUI). */
  redraw?: () => void;
  /** Every command on offer (built-in and custom), for /help. */
  commands?: readonly SlashCommand[];
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

export const note = (context: CommandContext, text: string) => context.dispatch({type: 'notice', text});
