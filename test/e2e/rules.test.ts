import {existsSync} from 'node:fs';
import {mkdir, readFile, realpath, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {describe, expect, test} from 'vitest';
import {rememberTrust} from '../../source/agent/guard/trust.js';
import {sse} from '../support/sse.js';
import {guardRuns} from './guard-runs.js';

// Permission rules end to end: the config file and the project's settings, through nib -p.

const run = guardRuns();

async function userRules(permissions: object): Promise<void> {
  await mkdir(join(run.home.home, '.config', 'nib'), {recursive: true});
  await writeFile(join(run.home.home, '.config', 'nib', 'config.json'), JSON.stringify({permissions}));
}

async function projectRules(permissions: object, file = 'settings.json'): Promise<void> {
  await mkdir(join(run.home.workspace, '.nib'), {recursive: true});
  await writeFile(join(run.home.workspace, '.nib', file), JSON.stringify({permissions}));
}


const toolResults = () => run.toolResults();

const bash = (command: string) => sse.toolCall('bash', {command});
const ask = ['--approval-mode', 'ask'];

describe('permission rules', () => {
  test('bash(exact) lets exactly that command run in ask mode; anything else is still refused', async () => {
    await userRules({allow: ['bash(echo hi)']});
    await run.nib([bash('echo hi'), bash('echo hi there')], ask);
    expect(toolResults()[0]).toMatch(/^hi\n/);
    expect(toolResults()[1]).toMatch(/bash was not run/);
  });

  test('bash(prefix:*) covers the command and its arguments, at a word boundary', async () => {
    await userRules({allow: ['bash(printf:*)']});
    await run.nib([bash('printf "%s" one'), bash('printfx')], ask);
    expect(toolResults()[0]).toMatch(/^one/);
    expect(toolResults()[1]).toMatch(/bash was not run/);
  });

  test('compound commands: every part must be allowed (&&, ;, |, $( ), backticks, newlines)', async () => {
    await userRules({allow: ['bash(echo:*)', 'bash(cat:*)']});
    const sneaky = ['echo ok && touch a1', 'echo ok; touch a2', 'echo ok | tee a3', 'echo $(touch a4)', 'echo `touch a5`', 'echo ok\ntouch a6'];
    await run.nib([...sneaky.map(bash), bash('echo ok | cat')], ask);
    const results = toolResults();
    for (let i = 0; i < sneaky.length; i++) expect(results[i]).toMatch(/bash was not run/);
    for (let i = 1; i <= 6; i++) expect(existsSync(join(run.home.workspace, `a${i}`))).toBe(false);
    expect(results[6]).toMatch(/^ok\n/);
  });

  test('deny holds in yolo, also for one part of a compound command', async () => {
    await userRules({deny: ['bash(rm:*)']});
    await writeFile(join(run.home.workspace, 'keep.txt'), 'x');
    await run.nib([bash('ls && rm keep.txt'), bash('echo fine')], ['--approval-mode', 'yolo']);
    expect(toolResults()[0]).toMatch(/deny bash\(rm:\*\) \(user settings\) forbids it/);
    expect(existsSync(join(run.home.workspace, 'keep.txt'))).toBe(true);
    expect(toolResults()[1]).toMatch(/^fine/);
  });

  test('a command hidden in ${x:-$( )} or $((` `)) is not covered by an allow rule for the outer one', async () => {
    await userRules({allow: ['bash(git diff:*)', 'bash(echo:*)']});
    await run.nib([bash('git diff ${x:-$(touch pwned1)}'), bash('echo $((`touch pwned2`))'), bash('echo evil >& pwned3')], [...ask, '--sandbox', 'off']);
    for (const result of toolResults()) expect(result).toMatch(/bash was not run/);
    for (const name of ['pwned1', 'pwned2', 'pwned3']) expect(existsSync(join(run.home.workspace, name)), name).toBe(false);
  });

  test('deny holds in yolo for a command hidden in ${x:-$( )}', async () => {
    await userRules({deny: ['bash(rm:*)']});
    await writeFile(join(run.home.workspace, 'keep.txt'), 'x');
    await run.nib([bash('ls ${x:-$(rm -f keep.txt)}')], ['--approval-mode', 'yolo', '--sandbox', 'off']);
    expect(toolResults()[0]).toMatch(/deny bash\(rm:\*\) \(user settings\) forbids it/);
    expect(existsSync(join(run.home.workspace, 'keep.txt'))).toBe(true);
  });

  test('read(**/.env) is denied in yolo; edit(src/**) and write(docs/**) allow only their paths', async () => {
    await userRules({deny: ['read(**/.env)'], allow: ['edit(src/**)', 'write(docs/**)']});
    await mkdir(join(run.home.workspace, 'config'));
    await writeFile(join(run.home.workspace, 'config', '.env'), 'SECRET=1');
    const yolo = await run.nib([sse.toolCall('read', {path: 'config/.env'})], ['--approval-mode', 'yolo']);
    expect(yolo.code).toBe(0);
    expect(toolResults()[0]).toMatch(/deny read\(\*\*\/\.env\)/);
    await run.nib(
      [
        sse.toolCall('write', {path: 'src/a.ts', content: 'a\n'}),
        sse.toolCall('write', {path: 'docs/b.md', content: 'b\n'}),
        sse.toolCall('write', {path: 'other.txt', content: 'c\n'}),
      ],
      ask,
    );
    expect(await readFile(join(run.home.workspace, 'src/a.ts'), 'utf8')).toBe('a\n');
    expect(await readFile(join(run.home.workspace, 'docs/b.md'), 'utf8')).toBe('b\n');
    expect(existsSync(join(run.home.workspace, 'other.txt'))).toBe(false);
  });

  test('a read rule covers what grep finds in a searched folder: the denied files are left out, and the model is told', async () => {
    await userRules({deny: ['read(**/.env)', 'read(secret/**)']});
    await mkdir(join(run.home.workspace, 'secret'));
    await writeFile(join(run.home.workspace, 'secret', 'k.txt'), 'S=dirsecret\n');
    await writeFile(join(run.home.workspace, '.env'), 'API=topsecret\n');
    await writeFile(join(run.home.workspace, 'notes.txt'), 'no secret here\n');
    const result = await run.nib([sse.toolCall('grep', {pattern: 'secret'}), sse.toolCall('grep', {pattern: 'secret', glob: '*.env'})], ['--approval-mode', 'yolo']);
    // The model is told; the person is not told of an @ attachment nobody typed.
    expect(result.stderr).not.toContain('was not attached');
    const [all, env] = toolResults();
    expect(all).toContain('notes.txt:1: no secret here');
    expect(all).not.toContain('dirsecret');
    expect(all).toMatch(/1 file with matches left out: the deny rule read\(secret\/\*\*\) keeps it from being read/);
    expect(env).not.toContain('topsecret');
  });

  test('a bare tool name covers all its calls: deny write in yolo', async () => {
    await userRules({deny: ['write']});
    await run.nib([sse.toolCall('write', {path: 'x.txt', content: 'x'})], ['--approval-mode', 'yolo']);
    expect(toolResults()[0]).toMatch(/deny write/);
    expect(existsSync(join(run.home.workspace, 'x.txt'))).toBe(false);
  });

  test('an ask rule makes a command ask even in yolo (refused in print mode)', async () => {
    await userRules({ask: ['bash(git push:*)']});
    await run.nib([bash('git push origin main')], ['--approval-mode', 'yolo']);
    // The rule is the reason, not the mode (yolo would run it).
    expect(toolResults()[0]).toMatch(/bash was not run: the person's permission rule ask bash\(git push:\*\) \(user settings\) wants them asked first/);
    expect(toolResults()[0]).not.toContain('--approval-mode');
  });

  test('a rule that is not a rule is a clear error naming the file and the rule', async () => {
    await userRules({allow: ['bash(']});
    const result = await run.nib([], ask);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/config\.json: field "permissions\.allow\.0": "bash\(" is not a rule/);
  });
});

describe('project rules and trust', () => {
  test("the project's allow rules count only with --trust-project; its deny rules always", async () => {
    await projectRules({allow: ['bash(echo from-project)'], deny: ['bash(touch:*)']});
    const untrusted = await run.nib([bash('echo from-project'), bash('touch t1')], ['--approval-mode', 'yolo', '--sandbox', 'off']);
    expect(untrusted.stderr).toMatch(/allow rules or hooks; they do not count until you trust the workspace/);
    expect(toolResults()[0]).toMatch(/^from-project/); // yolo runs it anyway
    expect(toolResults()[1]).toMatch(/deny bash\(touch:\*\) \(project settings\)/);

    await run.nib([bash('echo from-project')], ask);
    expect(toolResults()[0]).toMatch(/bash was not run/);
    const trusted = await run.nib([bash('echo from-project')], [...ask, '--trust-project']);
    expect(trusted.stderr).not.toMatch(/do not count/);
    expect(toolResults()[0]).toMatch(/^from-project/);
  });

  test('a trust answer holds for the settings it was given to: a changed settings.local.json is untrusted again', async () => {
    await projectRules({allow: ['bash(echo from-project)']}, 'settings.local.json');
    // What answering y in the TUI records.
    expect((await rememberTrust({...process.env, ...run.home.env}, await realpath(run.home.workspace), true)).ok).toBe(true);
    const trusted = await run.nib([bash('echo from-project')], ask);
    expect(trusted.stderr).not.toMatch(/do not count/);
    expect(toolResults()[0]).toMatch(/^from-project/);

    await projectRules({allow: ['bash(echo from-project)', 'bash(touch:*)']}, 'settings.local.json');
    const changed = await run.nib([bash('echo from-project'), bash('touch planted')], ask);
    expect(changed.stderr).toMatch(/allow rules or hooks; they do not count until you trust the workspace/);
    expect(toolResults()[0]).toMatch(/bash was not run/);
    expect(toolResults()[1]).toMatch(/bash was not run/);
    expect(existsSync(join(run.home.workspace, 'planted'))).toBe(false);
    await run.nib([bash('echo from-project')], [...ask, '--trust-project']);
    expect(toolResults()[0]).toMatch(/^from-project/);
  });

  test('settings.local.json is read too, and a broken project file is a clear error', async () => {
    await projectRules({deny: ['bash(echo:*)']}, 'settings.local.json');
    await run.nib([bash('echo hi')], ['--approval-mode', 'yolo']);
    expect(toolResults()[0]).toMatch(/\(local settings\)/);
    await writeFile(join(run.home.workspace, '.nib', 'settings.json'), '{"permissions": {"allow": "bash"}}');
    const broken = await run.nib([], ask);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toMatch(/\.nib\/settings\.json: field "permissions\.allow"/);
  });
});
