import {mkdir, mkdtemp, realpath, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, test} from 'vitest';
import {expandCustomCommand, expandCustomPrompt, loadCustomCommands, parseCommandFile} from '../../source/agent/custom-commands.js';
import {withCustomCommands} from '../../source/commands/custom.js';
import {userCommandOf} from '../../source/agent/user-command.js';
import type {CommandContext} from '../../source/commands/context.js';
import {slashCommands} from '../../source/commands/slash.js';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map(dir => rm(dir, {recursive: true, force: true})));
});
async function dirs() {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), 'nib-custom-')));
  made.push(base);
  const root = path.join(base, 'project');
  const configDir = path.join(base, 'config', 'nib');
  await mkdir(path.join(root, '.nib', 'commands'), {recursive: true});
  await mkdir(path.join(configDir, 'commands'), {recursive: true});
  return {root, configDir, project: path.join(root, '.nib', 'commands'), user: path.join(configDir, 'commands')};
}

describe('parseCommandFile', () => {
  test('Claude Code front matter: description and argument-hint are used, other keys are accepted', async () => {
    const file = '---\ndescription: Review a file\nargument-hint: FILE [FOCUS]\nallowed-tools: Bash(git diff:*)\nmodel: x\n---\nReview $1.\n';
    expect(await parseCommandFile(file)).toEqual({ok: true, value: {description: 'Review a file', args: 'FILE [FOCUS]', body: 'Review $1.'}});
  });

  test('without front matter the first line describes it; broken YAML is a clear error', async () => {
    expect(await parseCommandFile('Explain the build.\nMore.')).toEqual({ok: true, value: {description: 'Explain the build.', body: 'Explain the build.\nMore.'}});
    const broken = await parseCommandFile('---\ndescription: [unclosed\nnot a key line\n---\nbody');
    expect(broken).toEqual({ok: false, error: expect.stringMatching(/^the front matter is not valid YAML/)});
  });

  test('front matter that is not strict YAML, as Claude Code accepts it, is read as key: value lines', async () => {
    const colon = await parseCommandFile('---\ndescription: Fix issue: parse the number\nargument-hint: [list|save] [name]\n---\nFix it.');
    expect(colon).toEqual({ok: true, value: {description: 'Fix issue: parse the number', args: '[list|save] [name]', body: 'Fix it.'}});
    const wip = await parseCommandFile('---\ndescription: [WIP] draft command\n---\nDraft.');
    expect(wip).toMatchObject({ok: true, value: {description: '[WIP] draft command'}});
    // Indented lines under a key nib does not use (a list of tools) do not stop it.
    expect(await parseCommandFile('---\ndescription: Fix: it\nallowed-tools:\n  - Bash\n  - Read\n---\nFix.')).toMatchObject({ok: true, value: {description: 'Fix: it'}});
    // A YAML list, as in Claude Code's own example: shown as written.
    expect(await parseCommandFile('---\nargument-hint: [message]\n---\nCommit: $ARGUMENTS')).toMatchObject({ok: true, value: {args: '[message]'}});
  });

  test('an empty or binary command file is not loaded, and says why', async () => {
    expect(await parseCommandFile('')).toEqual({ok: false, error: 'it has no text to send'});
    expect(await parseCommandFile('---\ndescription: nothing\n---\n')).toEqual({ok: false, error: 'it has no text to send'});
    expect(await parseCommandFile('PK\u0003\u0004\u0000\u0000binary')).toEqual({ok: false, error: 'it is binary, or not UTF-8 text'});
    expect(await parseCommandFile(Buffer.from([0xff, 0xfe, 0x41, 0x00]).toString('utf8'))).toEqual({ok: false, error: 'it is binary, or not UTF-8 text'});
  });
});

describe('expandCustomCommand', () => {
  test('$ARGUMENTS and $1…$9, quotes keep words together, missing ones are empty', () => {
    const body = 'Review $1 for $2. All: $ARGUMENTS. Ninth: [$9]';
    expect(expandCustomCommand({body}, 'src/a.ts "error handling"')).toBe('Review src/a.ts for error handling. All: src/a.ts "error handling". Ninth: []');
    expect(expandCustomCommand({body: '$1|$2|$3|$4'}, `a 'b c' "d e" f`)).toBe('a|b c|d e|f');
  });

  test('arguments with no placeholder to go to are added, never dropped', () => {
    expect(expandCustomCommand({body: 'Write tests.'}, 'for the parser')).toBe('Write tests.\n\nArguments: for the parser');
    expect(expandCustomCommand({body: 'Write tests.'}, '')).toBe('Write tests.');
    // Words after the last placeholder used, as typed (line breaks too).
    const review = 'Review @$1 for bugs, focusing on $2.';
    expect(expandCustomCommand({body: review}, 'src/a.ts errors and also "check naming"')).toBe('Review @src/a.ts for bugs, focusing on errors.\n\nArguments: and also "check naming"');
    expect(expandCustomCommand({body: review}, 'src/a.ts\nplease also check\nthe tests')).toBe('Review @src/a.ts for bugs, focusing on please.\n\nArguments: also check\nthe tests');
    expect(expandCustomCommand({body: review}, 'src/a.ts')).toBe('Review @src/a.ts for bugs, focusing on .');
  });

  test('a word no placeholder takes before the last one used is kept too', () => {
    expect(expandCustomCommand({body: 'Fix $2.'}, 'one two three')).toBe('Fix two.\n\nArguments: one three');
  });

  test('a word with a space put after @ is quoted, so the mention takes the whole path', () => {
    expect(expandCustomCommand({body: 'Review @$1 and $1.'}, '"src/a b.ts"')).toBe('Review @"src/a b.ts" and src/a b.ts.');
  });

  test('a body (or argument) starting with ! stays text for the model, never a !command', () => {
    for (const expanded of [expandCustomCommand({body: '!touch x'}, ''), expandCustomCommand({body: '$ARGUMENTS'}, '!rm -rf y')]) {
      expect(userCommandOf(expanded)).toBeNull();
      expect(expanded.trim()).toMatch(/^!(touch x|rm -rf y)$/);
    }
  });
});

describe('loadCustomCommands', () => {
  test('project overrides user with a notice; subfolders group; built-ins and bad files are named', async () => {
    const {root, configDir, project, user} = await dirs();
    await writeFile(path.join(user, 'review.md'), '---\ndescription: mine\n---\nMy review of $ARGUMENTS');
    await writeFile(path.join(user, 'explain.md'), 'Explain $1');
    await writeFile(path.join(project, 'review.md'), '---\ndescription: the team review\n---\nTeam review of $ARGUMENTS');
    await mkdir(path.join(project, 'frontend'));
    await writeFile(path.join(project, 'frontend', 'component.md'), 'Make a component named $1');
    await writeFile(path.join(project, 'help.md'), 'not reachable');
    await writeFile(path.join(project, 'broken.md'), '---\n: : :\n  - [\n---\nx');
    await writeFile(path.join(project, 'notes.txt'), 'not a command');

    const loaded = await loadCustomCommands({root, configDir, builtIns: ['help', 'clear']});
    expect(loaded.commands.map(command => [command.name, command.scope, command.description])).toEqual([
      ['component', 'project', 'Make a component named $1'],
      ['explain', 'user', 'Explain $1'],
      ['review', 'project', 'the team review'],
    ]);
    expect(loaded.notices).toEqual([
      expect.stringMatching(/broken\.md: the front matter is not valid YAML.*; not loaded$/),
      `/review: the project's .nib/commands/review.md overrides your ${path.join(user, 'review.md')}`,
      `/help is a built-in command; ${path.join(project, 'help.md')} is not used (rename it)`,
    ]);
    expect(expandCustomPrompt('/review src/a.ts', loaded.commands)).toBe('Team review of src/a.ts');
    expect(expandCustomPrompt('/nope x', loaded.commands)).toBeNull();
    expect(expandCustomPrompt('/src/a.ts is broken', loaded.commands)).toBeNull();
  });

  test('no folders at all is no commands and no notices', async () => {
    const base = await realpath(await mkdtemp(path.join(tmpdir(), 'nib-custom-')));
    made.push(base);
    expect(await loadCustomCommands({root: base, configDir: path.join(base, 'none'), builtIns: []})).toEqual({commands: [], notices: []});
  });
});

describe('withCustomCommands', () => {
  test('custom commands follow the built-ins in the / list, say where they come from, and send their text', async () => {
    const {root, user} = await dirs();
    await writeFile(path.join(user, 'explain.md'), '---\ndescription: explain a file\nargument-hint: FILE\n---\nExplain @$1');
    const env = {XDG_CONFIG_HOME: path.dirname(path.dirname(user))};
    const {commands, notices} = await withCustomCommands(slashCommands, root, env);
    expect(notices).toEqual([]);
    expect(commands.slice(0, slashCommands.length)).toEqual(slashCommands);
    const explain = commands.at(-1)!;
    expect(explain).toMatchObject({name: 'explain', args: 'FILE', description: 'explain a file (user)'});
    const sent: string[] = [];
    await explain.run('src/a.ts', {submit: (text: string) => sent.push(text)} as unknown as CommandContext);
    expect(sent).toEqual(['Explain @src/a.ts']);
  });
});
