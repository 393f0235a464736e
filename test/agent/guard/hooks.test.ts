import {mkdtemp, readFile, realpath, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {runHooks} from '../../../source/agent/guard/hooks.js';
import type {GuardSettings} from '../../../source/agent/guard/settings.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'nib-hooks-')));
});
afterEach(() => rm(dir, {recursive: true, force: true}));

const base = () => ({session_id: 's1', transcript_path: '/t.jsonl', cwd: dir});
const hook = (command: string, matcher?: string, timeout?: number): GuardSettings['hooks'][number] => ({
  event: 'PreToolUse',
  source: 'user',
  entry: {...(matcher === undefined ? {} : {matcher}), hooks: [{type: 'command', command, ...(timeout ? {timeout} : {})}]},
});

describe('runHooks', () => {
  test('matchers: absent, empty and * match all; otherwise a whole-name regex, case-insensitive', async () => {
    const log = join(dir, 'log');
    const hooks = ['', '*', 'bash', 'Bash|Edit', 'ba'].map(matcher => hook(`echo "${matcher || 'empty'}" >> ${log}`, matcher));
    hooks.push(hook(`echo absent >> ${log}`));
    await runHooks(hooks, {...base(), hook_event_name: 'PreToolUse', tool_name: 'bash', tool_input: {}});
    expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual(['empty', '*', 'bash', 'Bash|Edit', 'absent']);
  });

  test('the first exit 2 blocks and stops the rest; other codes are warnings', async () => {
    const outcome = await runHooks(
      [hook('exit 3'), hook('echo first reason >&2; exit 2'), hook(`touch ${join(dir, 'not-run')}`)],
      {...base(), hook_event_name: 'PreToolUse', tool_name: 'bash'},
    );
    expect(outcome).toEqual({blocked: 'first reason', warnings: ['PreToolUse hook `exit 3` exited 3']});
  });

  test('events other than the one fired are not run', async () => {
    const outcome = await runHooks([hook('exit 2')], {...base(), hook_event_name: 'Stop'});
    expect(outcome).toEqual({blocked: null, warnings: []});
  });

  // A child that outlives the hook keeps stderr open for 30 s; only the test's own 15 s limit
  // decides, so a slow machine does not fail it.
  test('a setsid child holding stderr does not keep the hook running: resolved at exit, with its stderr', {timeout: 15_000}, async () => {
    const outcome = await runHooks(
      [hook('echo before-exit >&2; setsid sleep 30 & exit 1', undefined, 3), hook('setsid sleep 30 & exit 0')],
      {...base(), hook_event_name: 'PreToolUse', tool_name: 'bash'},
    );
    expect(outcome).toEqual({blocked: null, warnings: ['PreToolUse hook `echo before-exit >&2; setsid sleep 30 & exit 1` exited 1: before-exit']});
  });

  test('hiddenEnv is removed from the environment the hook gets', async () => {
    const outcome = await runHooks([hook('echo "key=${SOME_KEY:-none} other=$OTHER" >&2; exit 1')], {...base(), hook_event_name: 'PreToolUse'}, {
      env: {...process.env, SOME_KEY: 'sk-hidden-value', OTHER: 'kept'},
      hiddenEnv: ['SOME_KEY'],
    });
    expect(outcome.warnings).toEqual(['PreToolUse hook `echo "key=${SOME_KEY:-none} other=$OTHER" >&2; exit 1` exited 1: key=none other=kept']);
  });
});
