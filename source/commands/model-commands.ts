import type {AgentSession} from '../agent/session/agent-session.js';
import type {UiInput} from '../state/reducer.js';
import {note, type CommandContext, type SlashCommand} from './context.js';

/** The model and the context window: switching, choosing from the server's list, where the window goes. */
export const modelCommands: readonly SlashCommand[] = [
  {
    name: 'model',
    args: '[NAME]',
    description: "switch the model (without a name: choose from the server's models)",
    run: (arg, context) => {
      if (!arg) return openModelPicker(context.session, context.dispatch);
      context.session.setModel(arg);
      note(context, `model set to ${arg}`);
    },
  },
  {
    name: 'context',
    description: 'where the context window goes: system prompt and tools, conversation, room left',
    run: (_arg, context: CommandContext) => note(context, context.session.window.describe(context.session.history)),
  },
];

/** `/model` without a name, or a start with no model configured and several on the server. */
export function openModelPicker(session: AgentSession, dispatch: (input: UiInput) => void) {
  dispatch({type: 'show-overlay', overlay: {kind: 'model', models: session.window.models, current: session.model}});
}

/** A model chosen in the picker (or the picker left with esc). */
export function pickModel(session: AgentSession, dispatch: (input: UiInput) => void, model: string | null) {
  dispatch({type: 'close-overlay'});
  if (model === null || model === session.model) return;
  session.setModel(model);
  dispatch({type: 'notice', text: `model set to ${model}`});
}
