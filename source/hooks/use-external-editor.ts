import {useApp} from 'ink';
import {useCallback} from 'react';
import {editInExternalEditor, type EditorOptions, type EditorResult} from './editor.js';

/**
 * Returns `edit(text, suffix)`, which hands the terminal to the person's editor and gives it
 * back to Ink afterwards (Ink's `suspendTerminal`: raw mode off while the editor runs, a full
 * redraw after). This is what `ApprovalPrompt`'s `onEdit` and the prompt's Ctrl+G should be.
 */
export function useExternalEditor(options: Omit<EditorOptions, 'suffix'> = {}) {
  const {suspendTerminal} = useApp();
  const {env, stdio, tmpDir} = options;
  return useCallback(
    async (text: string, suffix: string): Promise<EditorResult> => {
      let result: EditorResult = {ok: false, error: {code: 'editor-failed', message: 'The editor did not run.'}};
      await suspendTerminal(async () => {
        result = await editInExternalEditor(text, {suffix, env, stdio, tmpDir});
      });
      return result;
    },
    [suspendTerminal, env, stdio, tmpDir],
  );
}
