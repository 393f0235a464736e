import {chmod, readdir, readFile, stat, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {describe, expect, test} from 'vitest';
import {createEditTool, editTool, isPreview, readTool} from '../../source/tools/index.js';
import type {ToolContext} from '../../source/core/tool.js';
import {contextFor, never, useTempDirs} from './helpers.js';

const tempDir = useTempDirs();

/** A workspace with one file that the agent has read, as a session would have it. */
async function readFileInWorkspace(content: string | Buffer, name = 'f.txt'): Promise<{ctx: ToolContext; file: string}> {
  const root = await tempDir();
  const file = path.join(root, name);
  await writeFile(file, content);
  const ctx = contextFor(root);
  const read = await readTool.run({path: name}, ctx, never);
  if (read.isError && read.code !== 'binary' && read.code !== 'not-utf8') throw new Error(read.content);
  return {ctx, file};
}

describe('edit', () => {
  test('an interrupt that lands before the write leaves the file as it was and says so', async () => {
    const {ctx, file} = await readFileInWorkspace('one\ntwo\n');
    const aborted = AbortSignal.abort();
    const result = await editTool.run({path: 'f.txt', old_string: 'two', new_string: 'TWO'}, ctx, aborted);
    expect(result).toMatchObject({isError: true, code: 'interrupted'});
    expect(result.content).toMatch(/it is unchanged/);
    expect(await readFile(file, 'utf8')).toBe('one\ntwo\n');
  });

  test('replaces a unique occurrence and reports the change', async () => {
    const {ctx, file} = await readFileInWorkspace('one\ntwo\nthree\n');
    const result = await editTool.run({path: 'f.txt', old_string: 'two', new_string: 'TWO\nand a half'}, ctx, never);
    expect(result).toMatchObject({isError: false, content: 'Edited f.txt: replaced 1 occurrence (+2 −1 lines).'});
    expect(result.detail).toMatchObject({summary: '+2 −1', added: 2, removed: 1});
    expect(result.detail?.file).toEqual({path: 'f.txt', oldText: 'one\ntwo\nthree\n', newText: 'one\nTWO\nand a half\nthree\n'});
    expect(await readFile(file, 'utf8')).toBe('one\nTWO\nand a half\nthree\n');
  });

  test('a CRLF file keeps CRLF, a BOM is kept, mode 0755 is kept', async () => {
    const {ctx, file} = await readFileInWorkspace('\uFEFF#!/bin/sh\r\necho old\r\nexit 0\r\n', 'run.sh');
    await chmod(file, 0o755);
    const result = await editTool.run({path: 'run.sh', old_string: 'echo old\nexit 0', new_string: 'echo new\necho more\nexit 0'}, ctx, never);
    expect(result.isError).toBe(false);
    const bytes = await readFile(file);
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(bytes.toString('utf8')).toBe('\uFEFF#!/bin/sh\r\necho new\r\necho more\r\nexit 0\r\n');
    expect((await stat(file)).mode & 0o777).toBe(0o755);
  });

  test('$&, $1 and $$ in new_string land literally', async () => {
    const {ctx, file} = await readFileInWorkspace('const price = X;\n');
    await editTool.run({path: 'f.txt', old_string: 'X', new_string: "'$&' + '$1' + '$$' + \"$'\""}, ctx, never);
    expect(await readFile(file, 'utf8')).toBe("const price = '$&' + '$1' + '$$' + \"$'\";\n");
  });

  test('two occurrences: an error naming both line numbers, file unchanged', async () => {
    const content = 'a\nfoo()\nb\nfoo()\n';
    const {ctx, file} = await readFileInWorkspace(content);
    const result = await editTool.run({path: 'f.txt', old_string: 'foo()', new_string: 'bar()'}, ctx, never);
    expect(result).toMatchObject({isError: true, code: 'multiple-matches'});
    expect(result.content).toContain('occurs 2 times in f.txt, at lines 2, 4.');
    expect(result.content).toContain('replace_all');
    expect(await readFile(file, 'utf8')).toBe(content);
    const all = await editTool.run({path: 'f.txt', old_string: 'foo()', new_string: 'bar()', replace_all: true}, ctx, never);
    expect(all.content).toBe('Edited f.txt: replaced 2 occurrences (+2 −2 lines).');
    expect(await readFile(file, 'utf8')).toBe('a\nbar()\nb\nbar()\n');
  });

  test('many occurrences: the count and the first ten lines, found in linear time', async () => {
    // One line, a million matches: the line numbers used to be counted by rescanning the line
    // for every match (24 s) and all million listed (a 3 MB message).
    const oneLine = await readFileInWorkspace('b'.repeat(1_000_000));
    const result = await editTool.run({path: 'f.txt', old_string: 'b', new_string: 'c'}, oneLine.ctx, never);
    expect(result).toMatchObject({isError: true, code: 'multiple-matches'});
    expect(result.content).toContain('old_string occurs 1000000 times in f.txt, all on line 1. Include more');

    const manyLines = await readFileInWorkspace('b\n'.repeat(50));
    const listed = await editTool.run({path: 'f.txt', old_string: 'b', new_string: 'c'}, manyLines.ctx, never);
    expect(listed.content).toContain('occurs 50 times in f.txt, at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …. Include more');

    // The tolerant strategies take the same road: typographic quotes on one long line.
    const typographic = await readFileInWorkspace('\u2019'.repeat(500_000));
    const tolerant = await editTool.run({path: 'f.txt', old_string: "'", new_string: '"'}, typographic.ctx, never);
    expect(tolerant.content).toContain('occurs 500000 times in f.txt (after ignoring trailing whitespace and typographic quotes');
    expect(tolerant.content).toContain('all on line 1.');
  });

  test('replace_all over many lines counts its changes without a quadratic diff', async () => {
    // Every line changed: the diff took 8 s for 8,000 lines, and 1 MiB holds half a million.
    const {ctx, file} = await readFileInWorkspace('x\nb\n'.repeat(20_000));
    const result = await editTool.run({path: 'f.txt', old_string: 'b', new_string: 'c', replace_all: true}, ctx, never);
    expect(result.content).toBe('Edited f.txt: replaced 20000 occurrences (+20000 −20000 lines).');
    expect(await readFile(file, 'utf8')).toBe('x\nc\n'.repeat(20_000));
  });

  test('a file changed on disk after it was read is refused and left as it is', async () => {
    const {ctx, file} = await readFileInWorkspace('version 1\n');
    await writeFile(file, 'version 2 by someone else\n');
    const result = await editTool.run({path: 'f.txt', old_string: 'version', new_string: 'v'}, ctx, never);
    expect(result).toMatchObject({isError: true, code: 'stale'});
    expect(result.content).toContain('changed on disk since you last read it');
    expect(await readFile(file, 'utf8')).toBe('version 2 by someone else\n');
  });

  test('each error has its own code and an actionable sentence', async () => {
    const {ctx, file} = await readFileInWorkspace('alpha\nbeta gamma delta\n');
    const run = (args: {path?: string; old_string: string; new_string: string}) =>
      editTool.run({path: 'f.txt', ...args}, ctx, never);
    expect(await run({old_string: '', new_string: 'x'})).toMatchObject({code: 'empty-old-string'});
    expect(await run({old_string: 'alpha', new_string: 'alpha'})).toMatchObject({code: 'no-change'});
    const missing = await run({old_string: 'beta gamma delts', new_string: 'x'});
    expect(missing.code).toBe('not-found');
    expect(missing.content).toContain('The closest near-miss is line 2: "beta gamma delta".');
    expect(await run({path: 'nope.txt', old_string: 'a', new_string: 'b'})).toMatchObject({code: 'file-not-found'});
    await writeFile(path.join(ctx.root, 'unread.txt'), 'hello\n');
    const unread = await run({path: 'unread.txt', old_string: 'hello', new_string: 'bye'});
    expect(unread.code).toBe('not-read');
    expect(unread.content).toContain('read it first');
    const small = createEditTool({maxBytes: 20});
    const large = await small.run({path: 'f.txt', old_string: 'alpha', new_string: 'x'.repeat(30)}, ctx, never);
    expect(large.code).toBe('too-large');
    expect(large.content).toContain('over the 20 B limit');
    expect(await readFile(file, 'utf8')).toBe('alpha\nbeta gamma delta\n');
  });

  test('tolerant matching: trailing whitespace first, then typography, then indentation', async () => {
    const {ctx, file} = await readFileInWorkspace('function f() {   \n  return “hi” – ok;\n}\n');
    const trailing = await editTool.run({path: 'f.txt', old_string: 'function f() {\n', new_string: 'function g() {\n'}, ctx, never);
    expect(trailing.content).toContain('(strategy: trailing-whitespace)');
    // The span matched includes the trailing blanks old_string left out, so they go too.
    expect(await readFile(file, 'utf8')).toBe('function g() {\n  return “hi” – ok;\n}\n');

    const typography = await editTool.run({path: 'f.txt', old_string: 'return "hi" - ok;', new_string: 'return "bye";'}, ctx, never);
    expect(typography.content).toContain('(strategy: typography)');
    expect(await readFile(file, 'utf8')).toBe('function g() {\n  return "bye";\n}\n');

    const indentation = await editTool.run(
      {path: 'f.txt', old_string: 'function g() {\nreturn "bye";\n}', new_string: 'function g() {\n  if (x) return "bye";\n}'},
      ctx,
      never,
    );
    expect(indentation.content).toContain('(strategy: indentation)');
    expect(await readFile(file, 'utf8')).toBe('function g() {\n  if (x) return "bye";\n}\n');
  });

  test('a file with mixed line endings is left as it is; LF old_string still matches its CRLF lines', async () => {
    const {ctx, file} = await readFileInWorkspace('a\r\nb\nc\r\n');
    const result = await editTool.run({path: 'f.txt', old_string: 'a\nb', new_string: 'A\nb'}, ctx, never);
    expect(result.content).toContain('(strategy: trailing-whitespace)');
    expect(await readFile(file, 'utf8')).toBe('A\nb\nc\r\n');
  });

  test('indentation-insensitive matching re-indents new_string to the file', async () => {
    const {ctx, file} = await readFileInWorkspace('class A {\n    run() {\n        go();\n    }\n}\n');
    const result = await editTool.run({path: 'f.txt', old_string: 'run() {\n    go();\n}', new_string: 'run() {\n    stop();\n    go();\n}'}, ctx, never);
    expect(result.content).toContain('(strategy: indentation)');
    expect(await readFile(file, 'utf8')).toBe('class A {\n    run() {\n        stop();\n        go();\n    }\n}\n');
  });

  test('a tolerant match must still be unique', async () => {
    const content = 'x = 1  \ny = 2\nx = 1\t\n';
    const {ctx, file} = await readFileInWorkspace(content);
    const ambiguous = await editTool.run({path: 'f.txt', old_string: '  x = 1', new_string: 'x = 2'}, ctx, never);
    expect(ambiguous).toMatchObject({code: 'multiple-matches'});
    expect(ambiguous.content).toContain('after ignoring indentation');
    expect(ambiguous.content).toContain('at lines 1, 3');
    expect(await readFile(file, 'utf8')).toBe(content);
    const all = await editTool.run({path: 'f.txt', old_string: '  x = 1', new_string: 'x = 2', replace_all: true}, ctx, never);
    expect(all).toMatchObject({code: 'multiple-matches'});
    expect(all.content).toContain('replace_all only applies to exact matches');
    expect(all.content).not.toContain('set replace_all to true');
    const result = await editTool.run({path: 'f.txt', old_string: 'x = 1\ny', new_string: 'x = 9\ny'}, ctx, never);
    expect(result.content).toContain('(strategy: trailing-whitespace)');
    expect(await readFile(file, 'utf8')).toBe('x = 9\ny = 2\nx = 1\t\n');
  });

  test('overlapping occurrences count as two: the edit does not guess which one was meant', async () => {
    // "}\n}" sits at lines 2-3 and at lines 3-4; a left-to-right scan used to see only the first.
    const content = 'f() {\n}\n}\n}\n';
    const {ctx, file} = await readFileInWorkspace(content);
    const result = await editTool.run({path: 'f.txt', old_string: '}\n}', new_string: '}'}, ctx, never);
    expect(result).toMatchObject({isError: true, code: 'multiple-matches'});
    expect(result.content).toContain('at lines 2, 3');
    const tolerant = await editTool.run({path: 'f.txt', old_string: '}  \n}', new_string: '}'}, ctx, never);
    expect(tolerant).toMatchObject({isError: true, code: 'multiple-matches'});
    expect(await readFile(file, 'utf8')).toBe(content);
  });

  test('preview is byte for byte what run writes, and editable is the new file', async () => {
    const {ctx, file} = await readFileInWorkspace('a\r\nb\r\n');
    const preview = await editTool.preview({path: 'f.txt', old_string: 'b', new_string: 'c'}, ctx);
    if (!isPreview(preview)) throw new Error(preview.content);
    expect(preview).toMatchObject({title: 'edit f.txt', outside: false, editable: 'a\r\nc\r\n'});
    expect(preview.file).toEqual({path: 'f.txt', oldText: 'a\r\nb\r\n', newText: 'a\r\nc\r\n'});
    await editTool.run({path: 'f.txt', old_string: 'b', new_string: 'c'}, ctx, never);
    expect(await readFile(file, 'utf8')).toBe(preview.file?.newText);
  });

  test("runEdited writes the person's text as the whole file, after the same checks", async () => {
    const {ctx, file} = await readFileInWorkspace('a\nb\n');
    const result = await editTool.runEdited!({path: 'f.txt', old_string: 'b', new_string: 'c'}, 'a\nperson\n', ctx, never);
    expect(result.content).toBe("Updated f.txt with the person's edited version (+1 −1 lines). Read it again before further edits.");
    expect(await readFile(file, 'utf8')).toBe('a\nperson\n');
    await writeFile(file, 'changed behind our back\n');
    const stale = await editTool.runEdited!({path: 'f.txt', old_string: 'b', new_string: 'c'}, 'x', ctx, never);
    expect(stale.code).toBe('stale');
  });

  test('after its own edit the agent may edit again without re-reading', async () => {
    const {ctx, file} = await readFileInWorkspace('1\n');
    await editTool.run({path: 'f.txt', old_string: '1', new_string: '2'}, ctx, never);
    const again = await editTool.run({path: 'f.txt', old_string: '2', new_string: '3'}, ctx, never);
    expect(again.isError).toBe(false);
    expect(await readFile(file, 'utf8')).toBe('3\n');
  });

  test('a failure between the temp file and the rename leaves the original and no temp file', async () => {
    const {ctx, file} = await readFileInWorkspace('original\n');
    let tempSeen = '';
    const failing = createEditTool({
      beforeRename: temp => {
        tempSeen = temp;
        throw new Error('disk on fire');
      },
    });
    const result = await failing.run({path: 'f.txt', old_string: 'original', new_string: 'new'}, ctx, never);
    expect(result).toMatchObject({isError: true, code: 'io'});
    expect(result.content).toContain('disk on fire');
    expect(path.dirname(tempSeen)).toBe(ctx.root);
    expect(await readFile(file, 'utf8')).toBe('original\n');
    expect(await readdir(ctx.root)).toEqual(['f.txt']);
  });

  test('binary files are refused', async () => {
    const {ctx} = await readFileInWorkspace(Buffer.from([1, 2, 0, 3]), 'b.bin');
    const result = await editTool.run({path: 'b.bin', old_string: 'a', new_string: 'b'}, ctx, never);
    expect(result.code).toBe('not-read');
  });
});
