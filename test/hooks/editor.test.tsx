import {chmod, mkdir, mkdtemp, readdir, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {render} from 'ink-testing-library';
import {useEffect} from 'react';
import {editInExternalEditor, editorCandidates, type EditorResult} from '../../source/hooks/editor.js';
import {useExternalEditor} from '../../source/hooks/use-external-editor.js';
import {waitFor} from '../support/wait-for.js';

let dir: string;
let temps: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nib-editor-test-'));
  temps = join(dir, 'temps');
  await mkdir(temps);
});
afterEach(() => rm(dir, {recursive: true, force: true}));

/** A fake editor: a shell script that does `body` to the file in "$1" (after any flags). */
async function script(name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\nfor last; do :; done\nfile="$last"\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

const env = (vars: Record<string, string>) => ({PATH: process.env['PATH'] ?? '', ...vars});

describe('editInExternalEditor', () => {
  test('returns what the editor saved and removes the temp file', async () => {
    const editor = await script('upper.sh', 'tr a-z A-Z < "$file" > "$file.new" && mv "$file.new" "$file"');
    const result = await editInExternalEditor('hello\n', {env: env({EDITOR: editor}), stdio: 'ignore', tmpDir: temps});
    expect(result).toEqual({ok: true, value: 'HELLO\n'});
    expect(await readdir(temps)).toEqual([]);
  });

  test('VISUAL wins over EDITOR; arguments in the variable are kept; the suffix names the file', async () => {
    const visual = await script('name.sh', 'echo "$1 $(basename "$file")" > "$file"');
    const editor = await script('never.sh', 'echo wrong > "$file"');
    const result = await editInExternalEditor('x', {
      env: env({VISUAL: `${visual} --wait`, EDITOR: editor}),
      suffix: '.ts',
      stdio: 'ignore',
      tmpDir: temps,
    });
    expect(result).toEqual({ok: true, value: '--wait proposal.ts\n'});
  });

  test('a missing editor falls through to the next one', async () => {
    const editor = await script('ok.sh', 'echo fine > "$file"');
    const result = await editInExternalEditor('x', {env: env({VISUAL: 'no-such-editor-nib', EDITOR: editor}), stdio: 'ignore', tmpDir: temps});
    expect(result).toEqual({ok: true, value: 'fine\n'});
  });

  test('a failing editor or an emptied file is a cancel, with a message', async () => {
    const failing = await script('fail.sh', 'exit 3');
    const failed = await editInExternalEditor('x', {env: env({EDITOR: failing}), stdio: 'ignore', tmpDir: temps});
    expect(failed).toMatchObject({ok: false, error: {code: 'editor-failed'}});
    const emptying = await script('empty.sh', ': > "$file"');
    const empty = await editInExternalEditor('x', {env: env({EDITOR: emptying}), stdio: 'ignore', tmpDir: temps});
    expect(empty).toMatchObject({ok: false, error: {code: 'empty'}});
    expect(await readdir(temps)).toEqual([]);
  });

  test('no editor at all', async () => {
    const result = await editInExternalEditor('x', {env: {PATH: temps, EDITOR: 'no-such-editor-nib'}, stdio: 'ignore', tmpDir: temps});
    expect(result).toMatchObject({ok: false, error: {code: 'no-editor'}});
  });

  test('candidates: VISUAL, EDITOR, nano, vi without duplicates or blanks', () => {
    expect(editorCandidates({VISUAL: 'code --wait', EDITOR: 'vi'})).toEqual(['code --wait', 'vi', 'nano']);
    expect(editorCandidates({EDITOR: ' '})).toEqual(['nano', 'vi']);
  });
});

describe('useExternalEditor', () => {
  test('runs the editor inside Ink and resolves with what was saved', async () => {
    const editor = await script('hook.sh', 'echo "from the hook" > "$file"');
    const results: EditorResult[] = [];
    function Probe() {
      const edit = useExternalEditor({env: env({EDITOR: editor}), stdio: 'ignore', tmpDir: temps});
      useEffect(() => {
        void edit('draft', '.md').then((result) => results.push(result));
      }, [edit]);
      return null;
    }
    const {unmount} = render(<Probe />);
    await waitFor(() => results.length > 0, () => 'no result yet');
    unmount();
    expect(results).toEqual([{ok: true, value: 'from the hook\n'}]);
  });
});
