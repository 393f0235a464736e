import {note, type SlashCommand} from './context.js';

/** The transcript at the current width; it costs the scrollback, so the description says so. */
export const redrawCommand: SlashCommand = {
  name: 'redraw',
  description: "clear the terminal's scrollback (and your shell history in it), then print the conversation again at this width",
  run: (_arg, context) => {
    if (context.redraw) context.redraw();
    else note(context, '/redraw needs the interactive session');
  },
};
