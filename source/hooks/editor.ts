import {spawn} from 'node:child_process';
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

export type EditorOptions = {
  /** File name suffix, so the editor picks the right syntax: `.ts`, `.sh`. */
  readonly suffix?: string;
  /** Where VISUAL/EDITOR are read from, and the editor's environment. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * 'inherit' hands the editor this process's terminal: the caller must have released it first
   * (see `useExternalEditor`). Tests running a scripted editor pass 'ignore'.
   */
  readonly stdio?: 'inherit' | 'ignore';
  /** Directory for the temp file; the OS temp dir by default. */
  readonly tmpDir?: string;
};

export type EditorError = {
  readonly code: 'no-editor' | 'editor-failed' | 'empty';
  /** One sentence for the person. */
  readonly message: string;
};

export type EditorResult = {ok: true; value: string} | {ok: false; error: EditorError};

// sh exits 127 when the command is not found: the cue to try the next editor.
const NOT_FOUND = 127;

/** $VISUAL, then $EDITOR, then nano, then vi; each may carry arguments (`code --wait`). */
export function editorCandidates(env: NodeJS.ProcessEnv): string[] {
  const named = [env['VISUAL'], env['EDITOR']].filter((value): value is string => Boolean(value?.trim()));
  return [...new Set([...named, 'nano', 'vi'])];
}

/**
 * Opens `text` in the person's editor and returns what they saved. The text goes to a temp
 * file that is always removed. An editor exiting non-zero (vim's `:cq`) or leaving the file
 * empty is a cancel, as with `git commit`.
 *
 * This function does not touch the terminal modes. Inside the Ink app, call it through
 * `useExternalEditor()`, which wraps it in Ink's `suspendTerminal` (raw mode and bracketed
 * paste off, frame erased, full redraw after).
 */
export async function editInExternalEditor(text: string, options: EditorOptions = {}): Promise<EditorResult> {
  const env = options.env ?? process.env;
  const dir = await mkdtemp(join(options.tmpDir ?? tmpdir(), 'nib-edit-'));
  const file = join(dir, `proposal${options.suffix ?? '.txt'}`);
  try {
    await writeFile(file, text, {mode: 0o600});
    for (const editor of editorCandidates(env)) {
      const code = await runEditor(editor, file, env, options.stdio ?? 'inherit');
      if (code === NOT_FOUND) continue;
      if (code !== 0) {
        return {ok: false, error: {code: 'editor-failed', message: `${editor} exited with code ${code}; nothing was changed.`}};
      }
      const edited = await readFile(file, 'utf8');
      if (edited.trim() === '') {
        return {ok: false, error: {code: 'empty', message: 'The editor left the text empty; nothing was changed.'}};
      }
      return {ok: true, value: edited};
    }
    return {ok: false, error: {code: 'no-editor', message: 'No editor found: set $VISUAL or $EDITOR.'}};
  } finally {
    await rm(dir, {recursive: true, force: true});
  }
}

function runEditor(editor: string, file: string, env: NodeJS.ProcessEnv, stdio: 'inherit' | 'ignore'): Promise<number> {
  return new Promise((resolve) => {
    // Through sh, like git: the variable may hold a command with arguments. The file is "$1",
    // never pasted into the command string, so its path needs no quoting.
    const child = spawn('/bin/sh', ['-c', `${editor} "$1"`, 'nib-editor', file], {stdio, env});
    child.on('error', () => resolve(NOT_FOUND));
    child.on('exit', (code, signal) => resolve(signal ? 128 : code ?? 1));
  });
}
