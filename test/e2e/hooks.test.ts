import {existsSync} from 'node:fs';
import {mkdir, readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {describe, expect, test} from 'vitest';
import {TEST_API_KEY} from '../support/nib-process.js';
import {sse, type StreamResponse} from '../support/sse.js';
import {guardRuns} from './guard-runs.js';

// The person's hook scripts, with Claude Code's stdin JSON and exit codes, through nib -p.

const run = guardRuns();

async function hooks(config: object, where: 'user' | 'project' = 'user'): Promise<void> {
  const dir = where === 'user' ? join(run.home.home, '.config', 'nib') : join(run.home.workspace, '.nib');
  await mkdir(dir, {recursive: true});
  await writeFile(join(dir, where === 'user' ? 'config.json' : 'settings.json'), JSON.stringify({hooks: config}));
}


const toolResults = () => run.toolResults();
/** Hooks run in every mode; yolo keeps approvals out of the way. */
const nib = (turns: StreamResponse[], args = ['--approval-mode', 'yolo'], options?: {prompt?: string}) => run.nib(turns, args, options);

const command = (text: string, timeout?: number) => ({type: 'command', command: text, ...(timeout ? {timeout} : {})});

describe('hooks', () => {
  test('PreToolUse exit 2 blocks the call and its stderr reaches the model; other tools pass', async () => {
    await hooks({
      PreToolUse: [{matcher: 'bash', hooks: [command(`cat > "$NIB_PROJECT_DIR/../pre.json"; echo "no commands today" >&2; exit 2`)]}],
    });
    await nib([sse.toolCall('bash', {command: 'touch ran.txt'}), sse.toolCall('write', {path: 'w.txt', content: 'w'})]);
    expect(existsSync(join(run.home.workspace, 'ran.txt'))).toBe(false);
    expect(toolResults()[0]).toBe('A PreToolUse hook blocked this bash call: no commands today');
    expect(existsSync(join(run.home.workspace, 'w.txt'))).toBe(true);
    const input = JSON.parse(await readFile(join(run.home.root, 'pre.json'), 'utf8'));
    expect(input).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'bash',
      tool_input: {command: 'touch ran.txt'},
      cwd: run.home.workspace,
    });
    expect(input.session_id).toMatch(/\S/);
    expect(existsSync(input.transcript_path)).toBe(true);
  });

  test('PostToolUse gets tool_response; a matcher written for Claude Code (Write|Edit) matches nib tools', async () => {
    await hooks({PostToolUse: [{matcher: 'Write|Edit', hooks: [command('cat >> "$CLAUDE_PROJECT_DIR/../post.jsonl"; echo >> "$CLAUDE_PROJECT_DIR/../post.jsonl"')]}]});
    await nib([sse.toolCall('write', {path: 'a.txt', content: 'hello\n'}), sse.toolCall('bash', {command: 'true'})]);
    const lines = (await readFile(join(run.home.root, 'post.jsonl'), 'utf8')).trim().split('\n').map(line => JSON.parse(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({hook_event_name: 'PostToolUse', tool_name: 'write', tool_input: {path: 'a.txt'}});
    expect(lines[0].tool_response.isError).toBe(false);
    expect(lines[0].tool_response.content).toMatch(/Created/);
  });

  test('a hung hook is killed at its timeout with a warning, and the call goes on', async () => {
    await hooks({PreToolUse: [{hooks: [command('sleep 30 & sleep 30', 0.5)]}]});
    const result = await nib([sse.toolCall('bash', {command: 'echo after-hook'})]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/PreToolUse hook `sleep 30 & sleep 30` was killed after 0\.5 s/);
    expect(toolResults()[0]).toMatch(/^after-hook/);
  });

  test('another exit code warns and goes on', async () => {
    await hooks({PreToolUse: [{hooks: [command('echo grumble >&2; exit 1')]}]});
    const result = await nib([sse.toolCall('bash', {command: 'echo still-ran'})]);
    expect(result.stderr).toMatch(/PreToolUse hook `echo grumble >&2; exit 1` exited 1: grumble/);
    expect(toolResults()[0]).toMatch(/^still-ran/);
  });

  test('UserPromptSubmit exit 2: the prompt is not sent and stderr is shown', async () => {
    await hooks({UserPromptSubmit: [{hooks: [command('grep -q secret && { echo "prompt mentions a secret" >&2; exit 2; }; exit 0')]}]});
    const result = await nib([], [], {prompt: 'tell me the secret'});
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/A UserPromptSubmit hook blocked the prompt; it was not sent: prompt mentions a secret/);
    expect(run.server.requests).toHaveLength(0);
    // In JSON, the turn still ends with turn-end, last.
    const json = await nib([], ['--approval-mode', 'yolo', '--output-format', 'json'], {prompt: 'tell me the secret'});
    const events = json.stdout.trim().split('\n').map(line => JSON.parse(line) as {type: string; reason?: string});
    expect(events.map(event => event.type)).toEqual(['error', 'turn-end']);
    expect(events.at(-1)!.reason).toBe('error');
  });

  test('SessionStart and Stop run around the prompt', async () => {
    const log = join(run.home.root, 'events.jsonl');
    const append = command(`cat >> ${log}; echo >> ${log}`);
    await hooks({SessionStart: [{hooks: [append]}], Stop: [{hooks: [append]}]});
    await nib([]);
    const events = (await readFile(log, 'utf8')).trim().split('\n').map(line => JSON.parse(line));
    expect(events.map(event => event.hook_event_name)).toEqual(['SessionStart', 'Stop']);
    expect(events[0].source).toBe('startup');
  });

  test("a project's hooks run only in a trusted workspace", async () => {
    const marker = join(run.home.root, 'project-hook-ran');
    await hooks({SessionStart: [{hooks: [command(`touch ${marker}`)]}]}, 'project');
    await nib([]);
    expect(existsSync(marker)).toBe(false);
    await nib([], ['--trust-project']);
    expect(existsSync(marker)).toBe(true);
  });

  // The setsid children hold the hooks' stderr for 30 s: only the test's own limit decides, well below that.
  test('a hook that leaves a setsid child holding its stderr does not hang nib', {timeout: 15_000}, async () => {
    await hooks({
      PreToolUse: [{hooks: [command('setsid sleep 30 & exit 0', 3), command('setsid sleep 30 & exit 0')]}],
      Stop: [{hooks: [command('setsid sleep 30 & exit 0')]}],
    });
    const result = await nib([sse.toolCall('bash', {command: 'echo after-hooks'})]);
    expect(result.code).toBe(0);
    expect(toolResults()[0]).toMatch(/^after-hooks/);
  });

  test('hooks do not get the provider key, and what they print is redacted everywhere nib shows it', async () => {
    await hooks({UserPromptSubmit: [{hooks: [command('echo leak=$OPENAI_API_KEY >&2; exit 1'), command(`echo "literal=${TEST_API_KEY}" >&2; exit 1`)]}]});
    const warned = await nib([]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/UserPromptSubmit hook .* exited 1: leak=\n/);
    expect(warned.stderr).toMatch(/exited 1: literal=\[redacted/);
    expect(warned.stdout + warned.stderr).not.toContain(TEST_API_KEY);

    await hooks({
      PreToolUse: [
        {matcher: 'bash', hooks: [command('echo "leak=$OPENAI_API_KEY" >&2; exit 2')]},
        {matcher: 'write', hooks: [command(`echo "literal=${TEST_API_KEY}" >&2; exit 2`)]},
      ],
    });
    const blocked = await nib([sse.toolCall('bash', {command: 'true'}), sse.toolCall('write', {path: 'w.txt', content: 'w'})]);
    expect(blocked.stdout + blocked.stderr).not.toContain(TEST_API_KEY);
    const [bash, write] = toolResults();
    expect(bash).toBe('A PreToolUse hook blocked this bash call: leak=');
    expect(write).toMatch(/^A PreToolUse hook blocked this write call: literal=\[redacted/);
    // The request headers carry the key by design; what the model reads must not.
    expect(JSON.stringify(run.server.requests.map(request => request.body))).not.toContain(TEST_API_KEY);
  });
});
