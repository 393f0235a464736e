import {describe, expect, test} from 'vitest';
import {matchRules, ruleProblem, suggestRules, type CallFacts, type Rule} from '../../../source/agent/guard/rules.js';
import {splitCommand} from '../../../source/agent/guard/shell.js';

const root = '/work/project';
const rules = (kind: Rule['kind'], ...texts: string[]): Rule[] => texts.map(text => ({kind, text, source: 'user'}));
const bash = async (text: string): Promise<CallFacts> => ({tool: 'bash', root, command: {text, parts: await splitCommand(text)}});
const file = (tool: string, path: string): CallFacts => ({tool, root, path});

describe('splitCommand', () => {
  test('splits on && || ; | newlines, $( ) and backticks, inside double quotes too', async () => {
    const parts = await splitCommand('a 1 && b 2 || c; d | e\nf "$(g)" `h`');
    expect(parts?.map(part => part.text)).toEqual(['a 1', 'b 2', 'c', 'd', 'e', 'f "$(g)" `h`', 'g', 'h']);
  });

  test('loops, conditionals, functions and subshells give up their commands', async () => {
    const parts = await splitCommand('for i in 1; do rm $i; done; if true; then (touch x); fi; f() { curl y; }');
    expect(parts?.map(part => part.text)).toEqual(['rm $i', 'true', 'touch x', 'curl y']);
  });

  test('output redirects to files are marked; /dev/null is not a write', async () => {
    expect(await splitCommand('echo a > f')).toEqual([{text: 'echo a', writesFile: true}]);
    expect(await splitCommand('echo a >> f')).toEqual([{text: 'echo a', writesFile: true}]);
    expect(await splitCommand('echo a 2>/dev/null')).toEqual([{text: 'echo a', writesFile: false}]);
  });

  test('what does not parse is null', async () => {
    expect(await splitCommand('echo "open')).toBeNull();
    expect(await splitCommand('diff <(ls a) <(ls b)')).toBeNull();
  });
});

describe('matchRules', () => {
  test('exact and prefix forms', async () => {
    const allow = rules('allow', 'bash(npm test)', 'bash(git diff:*)');
    expect(matchRules(allow, await bash('npm test'))?.kind).toBe('allow');
    expect(matchRules(allow, await bash('npm test --watch'))).toBeNull();
    expect(matchRules(allow, await bash('git diff'))?.kind).toBe('allow');
    expect(matchRules(allow, await bash('git diff --stat HEAD'))?.kind).toBe('allow');
    expect(matchRules(allow, await bash('git difftool'))).toBeNull();
  });

  test('a compound command is allowed only when every part is', async () => {
    const allow = rules('allow', 'bash(git status)', 'bash(echo:*)');
    expect(matchRules(allow, await bash('git status && echo ok'))?.kind).toBe('allow');
    for (const command of ['git status && rm -rf x', 'git status; rm x', 'echo $(rm x)', 'echo `rm x`', 'git status\nrm x', 'git status | sh']) {
      expect(matchRules(allow, await bash(command)), command).toBeNull();
    }
  });

  test('a redirect to a file is not covered by an allow rule for the command', async () => {
    expect(matchRules(rules('allow', 'bash(echo:*)'), await bash('echo x > ~/.bashrc'))).toBeNull();
  });

  test('a command that does not parse is never allowed, but still denied', async () => {
    expect(matchRules(rules('allow', 'bash(diff:*)'), await bash('diff <(a) <(b)'))).toBeNull();
    expect(matchRules(rules('deny', 'bash(diff:*)'), await bash('diff <(a) <(b)'))?.kind).toBe('deny');
  });

  test('deny beats ask beats allow, whatever order they are written in', async () => {
    const all = [...rules('allow', 'bash'), ...rules('ask', 'bash(git push:*)'), ...rules('deny', 'bash(rm:*)')];
    expect(matchRules(all, await bash('ls && rm x'))?.kind).toBe('deny');
    expect(matchRules(all, await bash('git push'))?.kind).toBe('ask');
    expect(matchRules(all, await bash('ls'))?.kind).toBe('allow');
  });

  test('path globs are relative to the workspace; edit covers write too; read covers grep and list', () => {
    expect(matchRules(rules('deny', 'read(**/.env)'), file('read', 'a/b/.env'))?.kind).toBe('deny');
    expect(matchRules(rules('deny', 'read(**/.env)'), file('grep', '.env'))?.kind).toBe('deny');
    expect(matchRules(rules('deny', 'read(**/.env)'), file('read', '/elsewhere/.env'))?.kind).toBe('deny');
    expect(matchRules(rules('allow', 'edit(src/**)'), file('edit', 'src/a/b.ts'))?.kind).toBe('allow');
    expect(matchRules(rules('allow', 'edit(src/**)'), file('write', `${root}/src/new.ts`))?.kind).toBe('allow');
    expect(matchRules(rules('allow', 'edit(src/**)'), file('edit', 'test/a.ts'))).toBeNull();
    expect(matchRules(rules('allow', 'edit(src/**)'), file('edit', 'src/../../outside.ts'))).toBeNull();
    expect(matchRules(rules('allow', 'write(docs/**)'), file('edit', 'docs/a.md'))).toBeNull();
  });

  test('mcp__server covers its tools; mcp__server__tool only that one', () => {
    const call = {tool: 'mcp__github__create_issue', root};
    expect(matchRules(rules('allow', 'mcp__github'), call)?.kind).toBe('allow');
    expect(matchRules(rules('allow', 'mcp__github__create_issue'), call)?.kind).toBe('allow');
    expect(matchRules(rules('allow', 'mcp__github__list_issues'), call)).toBeNull();
    expect(matchRules(rules('allow', 'mcp__git'), call)).toBeNull();
  });

  test('a server name with capitals is matched as written, so deny and "always" reach its tools', () => {
    const call = {tool: 'mcp__GitHub__create_issue', root};
    expect(matchRules(rules('deny', 'mcp__GitHub'), call)?.kind).toBe('deny');
    expect(matchRules(rules('deny', 'MCP__GitHub__create_issue'), call)?.kind).toBe('deny');
    expect(matchRules(rules('allow', suggestRules(call)[0]!), call)?.kind).toBe('allow');
    expect(matchRules(rules('allow', 'mcp__github'), call)).toBeNull();
  });

  test('a bare tool name covers every call of that tool, and tool names ignore case', async () => {
    expect(matchRules(rules('deny', 'write'), file('write', 'a'))?.kind).toBe('deny');
    expect(matchRules(rules('allow', 'Bash(npm test)'), await bash('npm test'))?.kind).toBe('allow');
  });
});

describe('ruleProblem and suggestRules', () => {
  test('malformed rules say what is wrong', () => {
    expect(ruleProblem('bash(npm test)')).toBeNull();
    expect(ruleProblem('mcp__server__tool')).toBeNull();
    expect(ruleProblem('bash(')).toMatch(/is not a rule/);
    expect(ruleProblem('bash()')).toMatch(/parentheses are empty/);
  });

  test('"always" suggests one exact rule per part; none for what cannot be covered', async () => {
    expect(suggestRules(await bash('npm test && npm run lint'))).toEqual(['bash(npm test)', 'bash(npm run lint)']);
    expect(suggestRules(await bash('echo x > f'))).toEqual([]);
    expect(suggestRules(await bash('cat <(ls)'))).toEqual([]);
    expect(suggestRules(file('edit', 'a.ts'))).toEqual(['edit']);
  });
});
