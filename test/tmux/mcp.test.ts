import {readFileSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {describe, expect, test} from 'vitest';
import {sse} from '../support/sse.js';
import type {Terminal} from '../support/tmux.js';
import {waitFor} from '../support/wait-for.js';
import {everythingEntry, faultEntry, marker, processesWith} from '../support/mcp-servers.js';
import {IDLE, nibPerTest} from './nib-session.js';

// MCP in a real terminal: a project's .mcp.json waits for the person's y, then server-everything's
// echo is approved with y and get-sum denied with a reason; nib exits and leaves no server behind.

const start = nibPerTest();

/** `/mcp` typed and sent: its answer is one line per server. */
async function askMcp(term: Terminal) {
  await term.type('/mcp');
  await term.send('Enter');
}

describe('MCP in the TUI', () => {
  test('approve the project server, run echo (y), deny get-sum (n + reason), exit with nothing left running', async () => {
    const mark = marker();
    const session = await start({
      script: [
        sse.toolCall('mcp__everything__echo', {message: 'hello tmux'}),
        sse.toolCall('mcp__everything__get-sum', {a: 2, b: 3}),
        sse.text('All done.'),
      ],
      files: {'.mcp.json': JSON.stringify({mcpServers: {everything: everythingEntry(mark)}})},
      width: 120,
    });
    const {term, server} = session;
    const question = await term.waitForText('Start them?');
    expect(question).toContain(`everything ${process.execPath}`);
    expect(question.replace(/\n/g, '')).toContain(mark);
    expect(await processesWith(mark)).toEqual([]);
    // Its keys show once they count (keys typed before that answer nothing).
    await term.waitForText('y yes, remembered for this workspace');
    await term.press('y', async () => (await term.capture()).includes('Starting MCP servers: everything'), now => now.includes('Start them?'));
    // Poll /mcp until the server is ready: the prompt never waits for it.
    for (let attempt = 0; ; attempt++) {
      const answer = await term.nextInHistory(/[●…✗] everything {2}[^\n]*/, () => askMcp(term));
      if (/● everything {2}ready · \d+ tools/.test(answer)) break;
      if (attempt > 20) throw new Error(`everything never became ready:\n${await term.capture()}`);
      await new Promise(resolve => setTimeout(resolve, 250));
    }
    await term.type('echo then add');
    await term.send('Enter');
    const prompt = await term.waitForText('Allow mcp__everything__echo?');
    expect(prompt).toContain('everything · echo');
    expect(prompt).toContain('"message": "hello tmux"');
    await term.press('y', async () => server.requests.length >= 2, now => now.includes('Allow mcp__everything__echo?'));
    await server.waitForRequests(2);
    expect(server.requests[1]!.body.messages.at(-1)).toMatchObject({role: 'tool', content: 'Echo: hello tmux'});

    await term.waitForText('Allow mcp__everything__get-sum?');
    await term.press('n', async () => (await term.capture()).includes('Why not?'), now => now.includes('Allow mcp__everything__get-sum?'));
    await term.type('no arithmetic today');
    await term.waitForText('no arithmetic today');
    await term.send('Enter');
    await server.waitForRequests(3);
    expect(String(server.requests[2]!.body.messages.at(-1)!.content)).toContain('no arithmetic today');
    const done = await term.waitForText('All done.');
    expect(done).toMatch(/everything › echo .*hello tmux/);
    await term.waitForText(IDLE);

    await term.send('C-d');
    for (let i = 0; i < 100 && (await term.query('#{pane_dead}')) !== '1'; i++) await new Promise(resolve => setTimeout(resolve, 100));
    expect(await term.query('#{pane_dead}')).toBe('1');
    expect(await processesWith(mark)).toEqual([]);
  }, 90_000);

  test('n leaves the project server unstarted until /mcp approve', async () => {
    const mark = marker();
    const session = await start({
      script: [sse.text('fine')],
      files: {'.mcp.json': JSON.stringify({mcpServers: {everything: everythingEntry(mark)}})},
      width: 120,
    });
    const {term} = session;
    await term.waitForText('y yes, remembered for this workspace');
    await term.press('n', async () => (await term.capture()).includes('/mcp approve starts them later'), now => now.includes('Start them?'));
    await term.type('/mcp');
    await term.send('Enter');
    await term.waitForText('? everything  not approved · project .mcp.json');
    expect(await processesWith(mark)).toEqual([]);
    await term.type('/mcp approve');
    await term.send('Enter');
    await term.waitForText('approved for this workspace and starting: everything');
    for (let i = 0; i < 100 && (await processesWith(mark)).length === 0; i++) await new Promise(resolve => setTimeout(resolve, 50));
    expect(await processesWith(mark)).toHaveLength(1);
  }, 60_000);

  test('Esc cancels a running MCP call: the server hears notifications/cancelled, the model gets an error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nib-tmux-mcp-'));
    const log = join(dir, 'fault.log');
    const logged = (text: string) => {
      try {
        return readFileSync(log, 'utf8').includes(text);
      } catch {
        return false;
      }
    };
    try {
      const session = await start({
        script: [sse.toolCall('mcp__fault__hang', {}), sse.text('Stopped.')],
        // --mcp-config: the person's own servers for this run, so no approval question.
        files: {'servers.json': JSON.stringify({mcpServers: {fault: faultEntry(marker(), {MCP_FAULT_LOG: log})}})},
        args: ['--mcp-config', 'servers.json', '--approval-mode', 'yolo'],
        width: 120,
      });
      const {term, server} = session;
      await term.waitForText(IDLE);
      for (let attempt = 0; ; attempt++) {
        const answer = await term.nextInHistory(/[●…✗] fault {2}[^\n]*/, () => askMcp(term));
        if (/● fault {2}ready/.test(answer)) break;
        if (attempt > 20) throw new Error(`fault never became ready:\n${await term.capture()}`);
        await new Promise(resolve => setTimeout(resolve, 250));
      }
      await term.type('wait forever');
      await term.send('Enter');
      // The one waitFor: its bound allows for a loaded machine (this waited 5 s and flaked under the full suite).
      await waitFor(() => logged('hang started'), () => 'the fault server never logged "hang started"');
      await term.waitForText('fault › hang');
      await term.send('Escape');
      await term.waitForText(IDLE);
      // An interrupt ends the turn; the next prompt carries the call's result to the model.
      await term.type('what happened?');
      await term.send('Enter');
      await server.waitForRequests(2);
      const toolMessage = server.requests[1]!.body.messages.find(m => m.role === 'tool');
      expect(String(toolMessage?.content)).toMatch(/^Interrupted by the user while running\.\nfault · hang: cancelled; the server was asked to stop\./);
      await waitFor(() => logged('hang cancelled'), () => 'the fault server never logged "hang cancelled"');
    } finally {
      await rm(dir, {recursive: true, force: true});
    }
  }, 60_000);
});
