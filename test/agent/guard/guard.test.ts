import {mkdir, mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {Guard} from '../../../source/agent/guard/guard.js';
import {loadGuardSettings} from '../../../source/agent/guard/settings.js';
import {rememberTrust, trustDecision, trustFingerprint} from '../../../source/agent/guard/trust.js';

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'nib-guard-')));
});
afterEach(() => rm(root, {recursive: true, force: true}));

async function project(file: string, settings: object) {
  await mkdir(join(root, '.nib'), {recursive: true});
  await writeFile(join(root, '.nib', file), JSON.stringify(settings));
}

async function guard(trusted = true) {
  const settings = await loadGuardSettings({root, user: {permissions: {deny: ['bash(rm:*)']}}, trusted});
  if (!settings.ok) throw new Error(settings.error);
  return new Guard({root, settings: settings.value, sandbox: null, env: {}, hookBase: () => ({session_id: 's', transcript_path: 't'})});
}

describe('loadGuardSettings', () => {
  test('untrusted: project deny and ask rules count, allow rules and hooks wait and are listed', async () => {
    await project('settings.json', {
      permissions: {allow: ['bash(make)'], deny: ['read(secrets/**)'], ask: ['bash(git push:*)']},
      hooks: {SessionStart: [{hooks: [{type: 'command', command: 'echo hi'}]}]},
    });
    const loaded = await loadGuardSettings({root, user: {}, trusted: false});
    expect(loaded.ok && loaded.value.rules.map(rule => `${rule.kind} ${rule.text} ${rule.source}`)).toEqual([
      'deny read(secrets/**) project',
      'ask bash(git push:*) project',
    ]);
    expect(loaded.ok && loaded.value.waitingForTrust).toEqual(['allow bash(make)', 'SessionStart hook: echo hi']);
    const trusted = await loadGuardSettings({root, user: {}, trusted: true});
    expect(trusted.ok && trusted.value.rules).toHaveLength(3);
    expect(trusted.ok && trusted.value.hooks).toHaveLength(1);
  });

  test('an unknown hook event or a bad matcher is an error naming the file and field', async () => {
    await project('settings.json', {hooks: {PreToolUse: [{matcher: '(', hooks: []}]}});
    const loaded = await loadGuardSettings({root, user: {}, trusted: true});
    expect(loaded).toEqual({ok: false, error: expect.stringMatching(/settings\.json: field "hooks\.PreToolUse\.0\.matcher": not a valid regular expression/)});
    await project('settings.json', {hooks: {BeforeEverything: []}});
    expect((await loadGuardSettings({root, user: {}, trusted: true})).ok).toBe(false);
  });
});

describe('Guard rules', () => {
  test('"always" for the project writes settings.local.json, keeping what else is in it', async () => {
    await project('settings.local.json', {permissions: {deny: ['bash(curl:*)']}, hooks: {}});
    const g = await guard();
    expect(await g.remember(['bash(npm test)'], 'project')).toEqual({ok: true, value: undefined});
    const local = JSON.parse(await readFile(join(root, '.nib', 'settings.local.json'), 'utf8'));
    expect(local).toEqual({permissions: {deny: ['bash(curl:*)'], allow: ['bash(npm test)']}, hooks: {}});
    expect(g.listRules().map(rule => `${rule.kind} ${rule.text} ${rule.source}`)).toEqual([
      'deny bash(rm:*) user',
      'deny bash(curl:*) local',
      'allow bash(npm test) local',
    ]);
  });

  test('removeRule: session and local rules go; config-file and settings.json rules are pointed at', async () => {
    await project('settings.json', {permissions: {deny: ['write']}});
    const g = await guard();
    await g.remember(['bash(ls)'], 'session');
    await g.remember(['bash(pwd)'], 'project');
    const find = (text: string) => g.listRules().find(rule => rule.text === text)!;
    expect(await g.removeRule(find('bash(ls)'))).toEqual({ok: true, value: 'removed allow rule bash(ls) (session)'});
    expect(await g.removeRule(find('bash(pwd)'))).toEqual({ok: true, value: 'removed allow rule bash(pwd) (local)'});
    expect(JSON.parse(await readFile(join(root, '.nib', 'settings.local.json'), 'utf8'))).toEqual({permissions: {allow: []}});
    expect(await g.removeRule(find('bash(rm:*)'))).toEqual({ok: false, error: 'deny rule bash(rm:*) is written in your config file; edit it there'});
    expect(await g.removeRule(find('write'))).toEqual({ok: false, error: expect.stringContaining('.nib/settings.json; edit it there')});
    expect(g.listRules().map(rule => rule.text)).toEqual(['bash(rm:*)', 'write']);
  });

  test('forgetSession drops only the rules kept for this session', async () => {
    const g = await guard();
    await g.remember(['bash(ls)'], 'session');
    await g.remember(['bash(pwd)'], 'project');
    g.forgetSession();
    expect(g.listRules().map(rule => `${rule.text} ${rule.source}`)).toEqual(['bash(rm:*) user', 'bash(pwd) local']);
  });
});

describe('trust', () => {
  test('no answer, yes, and no are remembered per workspace in the state dir', async () => {
    const env = {XDG_STATE_HOME: join(root, 'state')};
    expect(await trustDecision(env, '/a')).toBeUndefined();
    await rememberTrust(env, '/a', true);
    await rememberTrust(env, '/b', false);
    expect([await trustDecision(env, '/a'), await trustDecision(env, '/b'), await trustDecision(env, '/c')]).toEqual([true, false, undefined]);
  });

  test('the fingerprint covers allow rules and hooks of both files, not deny rules or formatting', async () => {
    const empty = await trustFingerprint(root);
    await project('settings.json', {permissions: {deny: ['bash(rm:*)']}});
    expect(await trustFingerprint(root)).toBe(empty);
    await project('settings.local.json', {permissions: {allow: ['bash(make)']}});
    const withAllow = await trustFingerprint(root);
    expect(withAllow).not.toBe(empty);
    await writeFile(join(root, '.nib', 'settings.local.json'), JSON.stringify({permissions: {allow: ['bash(make)']}}, null, 4));
    expect(await trustFingerprint(root)).toBe(withAllow);
    await project('settings.local.json', {permissions: {allow: ['bash(make)']}, hooks: {SessionStart: [{hooks: [{type: 'command', command: 'touch x'}]}]}});
    expect(await trustFingerprint(root)).not.toBe(withAllow);
    await writeFile(join(root, '.nib', 'settings.json'), '{not json');
    expect(await trustFingerprint(root)).toBeNull();
  });

  test('trust holds for the settings it was given to; changed settings ask again, changes nib saves keep it', async () => {
    const env = {XDG_STATE_HOME: join(root, 'state')};
    await project('settings.local.json', {permissions: {allow: ['bash(make)']}});
    await rememberTrust(env, root, true);
    expect(await trustDecision(env, root)).toBe(true);
    await project('settings.local.json', {permissions: {allow: ['bash(make)', 'bash']}});
    expect(await trustDecision(env, root)).toBeUndefined();
    await rememberTrust(env, root, true);
    const settings = await loadGuardSettings({root, user: {}, trusted: true});
    if (!settings.ok) throw new Error(settings.error);
    const g = new Guard({root, settings: settings.value, sandbox: null, env, hookBase: () => ({session_id: 's', transcript_path: 't'})});
    expect((await g.remember(['bash(npm test)'], 'project')).ok).toBe(true);
    expect(await trustDecision(env, root)).toBe(true);
    // A record from before fingerprints: true is tied to nothing and asks again; false stays a no.
    await writeFile(join(env.XDG_STATE_HOME, 'nib', 'trusted-workspaces.json'), JSON.stringify({[root]: true, '/b': false}));
    expect([await trustDecision(env, root), await trustDecision(env, '/b')]).toEqual([undefined, false]);
  });
});

describe('/trust', () => {
  test('trusting now brings the project allow rules and hooks into the session and remembers it; off takes them out', async () => {
    const env = {XDG_STATE_HOME: join(root, 'state')};
    await project('settings.local.json', {permissions: {allow: ['bash(make)'], deny: ['bash(rm:*)']}});
    const settings = await loadGuardSettings({root, user: {permissions: {allow: ['bash(ls)']}}, trusted: false});
    if (!settings.ok) throw new Error(settings.error);
    const g = new Guard({root, settings: settings.value, sandbox: null, env, hookBase: () => ({session_id: 's', transcript_path: 't'})});
    const notices: string[] = [];
    g.notify = text => notices.push(text);
    await g.remember(['bash(pwd)'], 'project');
    expect(notices).toEqual(['saved to .nib/settings.local.json; it counts in later sessions only once you trust this workspace (/trust)']);
    const listed = () => g.listRules().map(rule => `${rule.kind} ${rule.text} ${rule.source}`).sort();
    expect(listed()).toEqual(['allow bash(ls) user', 'allow bash(pwd) local', 'deny bash(rm:*) local']);

    const trusted = await g.setTrust(true);
    expect(trusted).toEqual({ok: true, value: expect.stringMatching(/^trusted this workspace: 2 allow rule\(s\) and 0 hook\(s\)/)});
    expect(listed()).toEqual(['allow bash(ls) user', 'allow bash(make) local', 'allow bash(pwd) local', 'deny bash(rm:*) local']);
    expect(await trustDecision(env, root)).toBe(true);

    expect((await g.setTrust(false)).ok).toBe(true);
    expect(listed()).toEqual(['allow bash(ls) user', 'deny bash(rm:*) local']);
    expect(await trustDecision(env, root)).toBe(false);
  });
});
