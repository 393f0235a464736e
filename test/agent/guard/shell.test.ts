import {mkdtemp, realpath, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {describe, expect, test} from 'vitest';
import {Guard} from '../../../source/agent/guard/guard.js';
import {matchRules, type CallFacts, type Rule} from '../../../source/agent/guard/rules.js';
import {loadGuardSettings} from '../../../source/agent/guard/settings.js';
import {MAX_PARSED_COMMAND, splitCommand} from '../../../source/agent/guard/shell.js';
import type {Tool} from '../../../source/core/tool.js';

const root = '/work/project';
const rules = (kind: Rule['kind'], ...texts: string[]): Rule[] => texts.map(text => ({kind, text, source: 'user'}));
const bash = async (text: string): Promise<CallFacts> => ({tool: 'bash', root, command: {text, parts: await splitCommand(text)}});

describe('commands hidden where the parser does not look', () => {
  const hidden = [
    'git diff ${x:-$(touch pwned1)}',
    'echo $((`touch pwned2`))',
    'ls ${x:-$(rm -f keep.txt)}',
    'echo "${x:-`rm -f keep.txt`}"',
    'echo ${x/a/$(rm x)}',
    'echo $((1 + $(rm x)))',
    'x=${y:-$(rm x)} ls',
    'cat < ${x:-$(rm x)}',
    'echo $(echo ${x:-$(rm x)})',
    'diff <(rm x) y',
  ];

  test('a word still holding $( ), a backtick or <( ) makes the line unparseable', async () => {
    for (const command of hidden) expect(await splitCommand(command), command).toBeNull();
  });

  test('allow rules for the outer command do not cover them', async () => {
    const allow = rules('allow', 'bash(git diff:*)', 'bash(echo:*)', 'bash(ls:*)', 'bash(cat:*)', 'bash(diff:*)');
    for (const command of hidden) expect(matchRules(allow, await bash(command)), command).toBeNull();
  });

  test('a deny rule holds for the nested command; unrelated words do not trip it', async () => {
    const deny = rules('deny', 'bash(rm:*)');
    for (const command of hidden.slice(2)) expect(matchRules(deny, await bash(command))?.kind, command).toBe('deny');
    expect(matchRules(deny, await bash('git diff ${x:-$(touch pwned1)}'))).toBeNull();
    expect(matchRules(deny, await bash('ls ${x:-$(echo rmdir)}'))).toBeNull();
    expect(matchRules(rules('deny', 'bash(git push:*)'), await bash('ls ${x:-$(git  "push" -f)}'))?.kind).toBe('deny');
    expect(matchRules(rules('ask', 'bash(rm:*)'), await bash('ls ${x:-$(rm -f keep.txt)}'))?.kind).toBe('ask');
  });

  test('arithmetic, parameter expansions and quoted text without commands still split as before', async () => {
    expect((await splitCommand('echo "it\'s" $((1 + 2)) ${x:-y} "${#x}"'))?.map(part => part.text)).toEqual([
      'echo it\'s $((1 + 2)) ${x:-y} "${#x}"',
    ]);
    expect((await splitCommand('echo "$(git rev-parse HEAD)"'))?.map(part => part.text)).toEqual([
      'echo "$(git rev-parse HEAD)"',
      'git rev-parse HEAD',
    ]);
  });

  test('a quoted $( ) alone errs towards unparseable: the parser drops the quotes that would tell', async () => {
    expect(await splitCommand("echo '$(rm x)'")).toBeNull();
  });
});

describe('redirects that open a file', () => {
  test('>& and <& with a file name write it; with a descriptor or - they do not', async () => {
    expect(await splitCommand('echo evil >& .git/hooks/pre-commit')).toEqual([{text: 'echo evil', writesFile: true}]);
    expect(await splitCommand('cat <& f')).toEqual([{text: 'cat', writesFile: true}]);
    expect(await splitCommand('echo a 2>&1')).toEqual([{text: 'echo a', writesFile: false}]);
    expect(await splitCommand('echo a >&-')).toEqual([{text: 'echo a', writesFile: false}]);
    expect(await splitCommand('echo a >& /dev/null')).toEqual([{text: 'echo a', writesFile: false}]);
  });

  test('an allow rule does not cover >& or &> to a file', async () => {
    const allow = rules('allow', 'bash(echo:*)');
    expect(matchRules(allow, await bash('echo evil >& .git/hooks/pre-commit'))).toBeNull();
    expect(matchRules(allow, await bash('echo evil &> .git/hooks/pre-commit'))).toBeNull();
    expect(matchRules(allow, await bash('echo ok 2>&1'))?.kind).toBe('allow');
  });
});

describe('long commands', () => {
  // Without the cap this took minutes and held the event loop: the test's own timeout is the check.
  test('a 200 KB command is unparseable and returns at once', async () => {
    const command = `echo ${'a && b; '.repeat(200_000 / 9)}`;
    expect(command.length).toBeGreaterThan(MAX_PARSED_COMMAND);
    expect(await splitCommand(command)).toBeNull();
    expect(matchRules(rules('allow', 'bash(echo:*)'), await bash(command))).toBeNull();
    expect(matchRules(rules('deny', 'bash(b:*)'), await bash(command))?.kind).toBe('deny');
  });

  test('just under the cap still parses', async () => {
    const command = `echo ${'a'.repeat(MAX_PARSED_COMMAND - 10)}`;
    expect((await splitCommand(command))?.length).toBe(1);
  });
});

describe('Guard.facts', () => {
  const bashTool = {name: 'bash', confinable: true} as Tool;

  async function guardWith(permissions: object) {
    const home = await realpath(await mkdtemp(join(tmpdir(), 'nib-shell-')));
    const settings = await loadGuardSettings({root: home, user: {permissions}, trusted: true});
    if (!settings.ok) throw new Error(settings.error);
    const guard = new Guard({root: home, settings: settings.value, sandbox: null, env: {}, hookBase: () => ({session_id: 's', transcript_path: 't'})});
    return {guard, done: () => rm(home, {recursive: true, force: true})};
  }

  test('with no rule about commands nothing is split, yet "always" still offers the parts', async () => {
    const {guard, done} = await guardWith({deny: ['read(**/.env)'], allow: ['bash']});
    const facts = await guard.facts(bashTool, {command: 'npm test && git status'});
    expect(facts.command).toEqual({text: 'npm test && git status'});
    expect(await guard.suggest(facts)).toEqual(['bash(npm test)', 'bash(git status)']);
    await done();
  });

  test('with a bash rule the command is split and judged', async () => {
    const {guard, done} = await guardWith({deny: ['bash(rm:*)']});
    const facts = await guard.facts(bashTool, {command: 'ls ${x:-$(rm -f keep.txt)}'});
    expect(facts.command?.parts).toBeNull();
    expect(guard.match(facts)?.kind).toBe('deny');
    await done();
  });
});
