import {existsSync} from 'node:fs';
import {readFile, rm} from 'node:fs/promises';
import {join} from 'node:path';
import {describe, expect, test} from 'vitest';
import {sse} from '../support/sse.js';
import {IDLE, nibPerTest} from './nib-session.js';

// Project trust, "always" with a scope, /permissions and the offer to run outside the sandbox,
// in a real terminal against the loopback server.

const start = nibPerTest();

describe('safety layers in a real terminal', () => {
  test("trusting the workspace at start makes the project's allow rule count, and is remembered", async () => {
    const session = await start({
      script: [sse.toolCall('bash', {command: 'echo trusted-ran'}), sse.text('Finished.')],
      files: {'.nib/settings.json': JSON.stringify({permissions: {allow: ['bash(echo trusted-ran)']}})},
      args: ['go'],
    });
    const {term, server} = session;
    const screen = await term.waitForText('do not trust');
    expect(screen).toContain('allow bash(echo trusted-ran)');
    // Not a file name: the rules may be in settings.json or settings.local.json.
    expect(screen).toContain('Its settings in .nib/ ask for:');
    await term.send('y');
    await term.waitForText('Finished.');
    // Ran without an approval prompt, in ask mode.
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('trusted-ran\\n');
    const remembered = JSON.parse(await readFile(join(session.home, '.local/state/nib/trusted-workspaces.json'), 'utf8'));
    expect(Object.values(remembered)).toEqual([{trusted: true, fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/)}]);
  });

  test('after answering n, /trust trusts the workspace: the allow rule counts at once and is remembered', async () => {
    const session = await start({
      script: [sse.toolCall('bash', {command: 'echo trusted-later'}), sse.text('Finished.')],
      files: {'.nib/settings.json': JSON.stringify({permissions: {allow: ['bash(echo trusted-later)']}})},
    });
    const {term, server} = session;
    await term.waitForText('do not trust');
    await term.send('n');
    await term.waitForText(IDLE);
    await term.type('/trust');
    await term.send('Enter');
    await term.waitForText(/trusted this workspace: 1 allow rule/);
    await term.type('go');
    await term.send('Enter');
    await term.waitForText('Finished.');
    expect(await term.capture()).not.toContain('Allow bash?');
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('trusted-later\\n');
    const remembered = JSON.parse(await readFile(join(session.home, '.local/state/nib/trusted-workspaces.json'), 'utf8'));
    expect(Object.values(remembered)).toEqual([{trusted: true, fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/)}]);
  });

  test('a shows the exact rule; p saves it to settings.local.json; /permissions lists and removes it', async () => {
    const session = await start({script: [sse.toolCall('bash', {command: 'echo hi'}), sse.text('Finished.')], args: ['go']});
    const {term} = session;
    await term.waitForText('Allow bash?');
    // press() repeats a key the prompt ignored because it came before the prompt was ready.
    const scope = async () => (await term.capture()).includes('Always allow bash(echo hi)?');
    await term.press('a', scope, now => now.includes('Allow bash?'));
    const saved = async () => existsSync(join(session.workspace, '.nib/settings.local.json'));
    await term.press('p', saved, now => now.includes('Always allow bash(echo hi)?'));
    await term.waitForText('Finished.');
    const local = JSON.parse(await session.read('.nib/settings.local.json'));
    expect(local).toEqual({permissions: {allow: ['bash(echo hi)']}});
    await term.waitForText(IDLE);
    await term.type('/permissions');
    await term.send('Enter');
    await term.waitForText(/1\. allow bash\(echo hi\)\s+\(\.nib\/settings\.local\.json\)/);
    await term.type('/permissions remove 1');
    await term.send('Enter');
    await term.waitForText('removed allow rule bash(echo hi) (local)');
    expect(JSON.parse(await session.read('.nib/settings.local.json'))).toEqual({permissions: {allow: []}});
  });

  test('a command the sandbox stopped is offered outside it; that run asks and then reaches outside', async () => {
    const probe = `/var/tmp/nib-tmux-probe-${process.pid}`;
    await rm(probe, {force: true});
    try {
      const session = await start({
        script: [sse.toolCall('bash', {command: `touch ${probe}`}), sse.text('Finished.')],
        args: ['--approval-mode', 'auto-edit', 'go'],
      });
      const {term} = session;
      // auto-edit: the sandboxed run needed no approval; its failure brings the offer.
      const screen = await term.waitForText('this runs it again outside the sandbox');
      expect(screen).toContain('Read-only file system');
      expect(existsSync(probe)).toBe(false);
      await term.press('y', async () => existsSync(probe), now => now.includes('this runs it again outside the sandbox'));
      await term.waitForText('Finished.');
      expect(existsSync(probe)).toBe(true);
    } finally {
      await rm(probe, {force: true});
    }
  });
});
