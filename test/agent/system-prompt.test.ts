import {describe, expect, test} from 'vitest';
import {APPROVAL_MODES} from '../../source/core/approval-mode.js';
import {resolveConfig} from '../../source/agent/config/config.js';
import {parseFlags} from '../../source/agent/config/flags.js';
import {createSandbox, openTestSession} from '../support/session.js';
import {buildSystemPrompt} from '../../source/agent/system-prompt.js';

describe('system prompt', () => {
  test('names the working directory, OS, date and tools, and says when to use them', () => {
    const prompt = buildSystemPrompt({
      cwd: '/work/app',
      platform: 'linux',
      date: new Date('2026-03-04T12:00:00Z'),
      tools: ['read', 'grep', 'list', 'write', 'edit', 'bash'],
    });
    expect(prompt).toContain('Working directory: /work/app');
    expect(prompt).toContain('OS: linux');
    expect(prompt).toContain('Date: 2026-03-04');
    expect(prompt).toContain('Tools: read, grep, list, write, edit, bash');
    expect(prompt).toMatch(/Read a file before editing it\. Prefer edit/);
    expect(prompt).toMatch(/short and direct/);
  });

  test('is the same whatever mode nib starts in: the person can leave plan mode mid-session', async () => {
    // It used to say "Plan mode is on" for good when started with --approval-mode plan, and list
    // only the read tools, though after a switch to ask the write tools are offered.
    const prompts = new Set<string>();
    const sandbox = await createSandbox('nib-prompt-');
    for (const mode of APPROVAL_MODES) {
      const {session} = await openTestSession(sandbox, ['--approval-mode', mode, '--base-url', 'http://127.0.0.1:9/v1'], {now: () => new Date(0)});
      const system = session.history[0];
      prompts.add(system?.type === 'system' ? system.content : '');
      await session.close();
    }
    await sandbox.cleanup();
    expect(prompts.size).toBe(1);
    const [prompt] = [...prompts];
    expect(prompt).toContain('Tools: read, grep, list, write, edit, bash');
    expect(prompt).not.toMatch(/plan mode is on/i);
    expect(prompt).toMatch(/plan mode.*only the read tools/i);
  });
});
