import {mkdir, symlink, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {describe, expect, test} from 'vitest';
import {Guard} from '../../source/agent/guard/guard.js';
import {loadGuardSettings} from '../../source/agent/guard/settings.js';
import {expandMentions} from '../../source/agent/mentions.js';
import {findMentions, mentionText, typingMention} from '../../source/core/mentions.js';
import {MentionIndex} from '../../source/agent/mention-index.js';
import {writeTool} from '../../source/tools/index.js';
import {contextFor, never, useTempDirs} from '../tools/helpers.js';

const tempDir = useTempDirs();

describe('findMentions', () => {
  test('@ at the start or after a space; quoted paths; e-mail addresses and pkg@1 are not mentions', () => {
    const text = '@a.ts and @"my notes.md", not me@x.org nor pkg@1.2, but (@b.ts)';
    expect(findMentions(text).map(mention => mention.path)).toEqual(['a.ts', 'my notes.md']);
    expect(findMentions('fix\n@src/x.ts')).toEqual([{path: 'src/x.ts', start: 4, end: 13}]);
    expect(mentionText('a b.txt')).toBe('@"a b.txt"');
    expect(mentionText('src/a.ts')).toBe('@src/a.ts');
    expect(typingMention('look at @src/ap')).toEqual({path: 'src/ap', start: 8, end: 15});
    expect(typingMention('@')).toEqual({path: '', start: 0, end: 1});
    expect(typingMention('@a.ts done')).toBeNull();
    expect(typingMention('me@x')).toBeNull();
  });
});

describe('expandMentions', () => {
  test('attaches each file bounded like read, once, and the file then counts as read for write', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, 'src'));
    await writeFile(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
    const context = contextFor(root);
    const expanded = await expandMentions('explain @src/a.ts, then @src/a.ts again.', context, never);
    expect(expanded.attachments).toHaveLength(1);
    expect(expanded.text).toMatch(/^explain @src\/a\.ts, then @src\/a\.ts again\.\n/);
    expect(expanded.text).toContain('<file path="src/a.ts">\n     1\texport const a = 1;\n</file>');
    // Without the mention, write would refuse to overwrite a file the model has not read.
    const written = await writeTool.run({path: 'src/a.ts', content: 'export const a = 2;\n'}, context, never);
    expect(written.isError).toBe(false);
  });

  test('a directory attaches its listing; a missing path stays as typed and attaches nothing', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, 'docs'));
    await writeFile(path.join(root, 'docs', 'one.md'), '# one\n');
    const listed = await expandMentions('see @docs/', contextFor(root), never);
    expect(listed.text).toContain('<directory path="docs">\ndocs is a directory with 1 entry:\none.md\n</directory>');

    const missing = await expandMentions('what about @nope.ts?', contextFor(root), never);
    expect(missing).toEqual({text: 'what about @nope.ts?', attachments: [], refused: []});
  });

  test('a path outside the workspace is left as typed; a binary file says why it is not shown', async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await writeFile(path.join(outside, 'secret.txt'), 'x');
    const out = await expandMentions(`@${path.join(outside, 'secret.txt')} @../`, contextFor(root), never);
    expect(out.attachments).toEqual([]);

    await writeFile(path.join(root, 'blob.bin'), Buffer.from([0, 1, 2]));
    const binary = await expandMentions('@blob.bin', contextFor(root), never);
    expect(binary.attachments[0]).toMatchObject({isError: true, content: expect.stringContaining('binary')});
  });
});

describe('expandMentions and deny rules', () => {
  test('a path a deny rule forbids reading stays as typed, by name or through a symlink, with a line saying why', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, '.env'), 'TOKEN=hunter2\n');
    await writeFile(path.join(root, 'ok.md'), 'fine\n');
    await symlink(path.join(root, '.env'), path.join(root, 'innocent'));
    const settings = await loadGuardSettings({root, user: {permissions: {deny: ['read(**/.env)']}}, trusted: false});
    if (!settings.ok) throw new Error(settings.error);
    const guard = new Guard({root, settings: settings.value, sandbox: null, env: {}, hookBase: () => ({session_id: 's', transcript_path: 't'})});
    const context = {...contextFor(root), readDenied: (paths: readonly string[]) => guard.readDenied(paths)};
    const out = await expandMentions('look at @.env, @innocent and @ok.md', context, never);
    expect(out.attachments.map(attachment => attachment.path)).toEqual(['ok.md']);
    expect(out.text).not.toContain('hunter2');
    expect(out.refused).toEqual(['@.env was not attached: the deny rule read(**/.env) forbids reading it.']);
    expect(out.text).toMatch(/^look at @\.env, @innocent and @ok\.md\n/);
    expect(out.text).toContain('@.env was not attached: the deny rule read(**/.env) forbids reading it.');
    expect(context.ledger.size).toBe(1);
    const linked = await expandMentions('@innocent', context, never);
    expect(linked.attachments).toEqual([]);
    expect(linked.refused).toEqual(['@.env was not attached: the deny rule read(**/.env) forbids reading it.']);
  });
});

describe('MentionIndex', () => {
  test('honours .gitignore, skips .git and node_modules, matches fuzzily, shallow first when empty', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, 'source', 'components'), {recursive: true});
    await mkdir(path.join(root, 'node_modules', 'x'), {recursive: true});
    await mkdir(path.join(root, 'dist'));
    await writeFile(path.join(root, '.gitignore'), 'dist/\n*.log\n');
    await writeFile(path.join(root, 'source', 'components', 'PromptInput.tsx'), '');
    await writeFile(path.join(root, 'source', 'app.tsx'), '');
    await writeFile(path.join(root, 'debug.log'), '');
    await writeFile(path.join(root, 'dist', 'cli.js'), '');
    await writeFile(path.join(root, 'node_modules', 'x', 'index.js'), '');
    let ready = 0;
    const index = new MentionIndex(root, () => (ready += 1));
    expect(index.search('app')).toEqual([]);
    await index.build();
    expect(ready).toBe(1);
    expect(index.search('')).toEqual(['.gitignore', 'source/', 'source/app.tsx', 'source/components/', 'source/components/PromptInput.tsx']);
    expect(index.search('prmptinp')).toEqual(['source/components/PromptInput.tsx']);
    expect(index.search('cli.js')).toEqual([]);
    expect(index.search('debug')).toEqual([]);

    await writeFile(path.join(root, 'source', 'new.ts'), '');
    await index.build();
    expect(index.search('new.ts')).toEqual([]); // fresh until invalidated: a keystroke never walks
    index.invalidate();
    await index.build();
    expect(index.search('new.ts')).toEqual(['source/new.ts']);
  });
});
