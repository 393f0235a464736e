import {describe, expect, test} from 'vitest';
import {runUserCommand, userCommandNote, userCommandOf, withUserCommandNotes} from '../../source/agent/user-command.js';
import {createBashTool, createToolRegistry, defaultRegistry} from '../../source/tools/index.js';
import {contextFor, never, useTempDirs} from '../tools/helpers.js';

const tempDir = useTempDirs();

describe('! commands', () => {
  test('only a prompt starting with ! and holding a command is one', () => {
    expect(userCommandOf('!git status')).toBe('git status');
    expect(userCommandOf('! ls -la ')).toBe('ls -la');
    expect(userCommandOf('!')).toBeNull();
    expect(userCommandOf('run !this')).toBeNull();
  });

  test('runs through the registry bash tool in the workspace, without hidden keys, and says how it ended', async () => {
    const root = await tempDir();
    const previous = process.env.OPENROUTER_API_KEY;
    process.env.OPENROUTER_API_KEY = 'or-secret-123456';
    try {
      const result = await runUserCommand('pwd; echo "key=[$OPENROUTER_API_KEY]"; exit 3', {tools: defaultRegistry, context: contextFor(root), signal: never});
      expect(result.content).toBe(`${root}\nkey=[]\n\n[Exit code 3 after ${/after (\S+ s)/.exec(result.content)![1]}.]`);
      expect(result.isError).toBe(true);
      expect(userCommandNote('pwd', result)).toMatch(/^The person ran this command in the workspace \(with !, not through you\):\n\$ pwd\n/);
    } finally {
      if (previous === undefined) delete process.env.OPENROUTER_API_KEY;
      else process.env.OPENROUTER_API_KEY = previous;
    }
  });

  test('the bash tool of the session is the one used (a sandboxed one applies too)', async () => {
    const root = await tempDir();
    const bounded = createToolRegistry([createBashTool({drainMs: 50})]);
    const result = await runUserCommand('echo hi', {tools: bounded, context: contextFor(root), signal: never});
    expect(result.content).toMatch(/^hi\n/);
    const none = await runUserCommand('echo hi', {tools: createToolRegistry([]), context: contextFor(root), signal: never});
    expect(none).toMatchObject({isError: true, code: 'no-bash'});
  });

  test('notes go ahead of the next prompt, in order', () => {
    expect(withUserCommandNotes('fix it', [])).toBe('fix it');
    expect(withUserCommandNotes('fix it', ['a', 'b'])).toBe('a\n\nb\n\nfix it');
  });
});
