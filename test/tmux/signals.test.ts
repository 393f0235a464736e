import {execFileSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {readFile} from 'node:fs/promises';
import {join} from 'node:path';
import {expect, test} from 'vitest';
import {sse} from '../support/sse.js';
import {waitFor} from '../support/wait-for.js';
import {nibPerTest} from './nib-session.js';

// Closing the terminal or `kill` must not leave a command nib started running on its own.

const start = nibPerTest();

// A killed process may stay a zombie for a moment until its new parent reaps it: that is dead.
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8').match(/^State:\s+(\S)/m)?.[1] !== 'Z';
  } catch {
    return false; // gone in between
  }
};

test.each([
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const)('%s during a running command: the command group is killed, the terminal restored, exit %i', async (signal, code) => {
  const session = await start({
    script: [sse.toolCall('bash', {command: 'sleep 300 & echo $! > sleep.pid; wait'}), sse.text('done')],
    // Unsandboxed: a pid the command writes from inside the sandbox is its own namespace's, not
    // the host's (the sandboxed case is the last test).
    args: ['--approval-mode', 'yolo', '--sandbox', 'off', 'run it'],
    // nib's pid is the inner shell's, which execs it.
    shell: `sh -c 'echo $$ > nib.pid; exec "$@"' sh "$@"; echo "nib exited with $?"; stty -a; exec sleep 60`,
  });
  const {term, workspace} = session;
  const sleepPid = Number(await session.waitForFile('sleep.pid', text => /^\d+\n$/.test(text)));
  const nibPid = Number(await readFile(join(workspace, 'nib.pid'), 'utf8'));
  expect(isAlive(sleepPid)).toBe(true);
  process.kill(nibPid, signal);
  // Wait for stty's whole local-flags line too: the exit line can be on screen before it.
  const screen = await term.waitForText(/nib exited with \d+[\s\S]*icanon[^\n]*\n/, {timeoutMs: 10_000});
  expect(screen).toContain(`nib exited with ${code}`);
  expect(isAlive(sleepPid)).toBe(false);
  const stty = screen.slice(screen.indexOf('nib exited'));
  expect(stty).toMatch(/(^|\s)icanon(\s|$)/m);
  expect(stty).toMatch(/(^|\s)echo(\s|$)/m);
});

test('closing the terminal for real (the tty hangs up) ends nib and its command, with no spin on the dead terminal', async () => {
  const session = await start({
    script: [sse.toolCall('bash', {command: 'sleep 300 & echo $! > sleep.pid; wait'}), sse.text('done')],
    args: ['--approval-mode', 'yolo', '--sandbox', 'off', 'run it'],
    shell: `echo $$ > nib.pid; exec "$@"`,
  });
  const sleepPid = Number(await session.waitForFile('sleep.pid', text => /^\d+\n$/.test(text)));
  const nibPid = Number(await readFile(join(session.workspace, 'nib.pid'), 'utf8'));
  await session.term.close();
  const deadline = Date.now() + 10_000;
  while ((isAlive(nibPid) || isAlive(sleepPid)) && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 50));
  expect(isAlive(nibPid)).toBe(false);
  expect(isAlive(sleepPid)).toBe(false);
});

test('SIGTERM during a sandboxed command: the sandbox and everything in it end with nib', async () => {
  // A duration no other process uses: from outside, the sandboxed sleep is found by its command line.
  const marker = `sleep 307.${process.pid}`;
  const running = () => execFileSync('ps', ['-eo', 'args'], {encoding: 'utf8'}).split('\n').filter(line => line.startsWith(marker));
  const session = await start({
    script: [sse.toolCall('bash', {command: `${marker} & echo started > started.txt; wait`}), sse.text('done')],
    args: ['--approval-mode', 'yolo', 'run it'],
    shell: `sh -c 'echo $$ > nib.pid; exec "$@"' sh "$@"; echo "nib exited with $?"; exec sleep 60`,
  });
  await session.waitForFile('started.txt', text => text === 'started\n');
  // The shell may write the file before its background child has become `sleep` (a busy machine).
  await waitFor(() => expect(running()).toHaveLength(1));
  process.kill(Number(await readFile(join(session.workspace, 'nib.pid'), 'utf8')), 'SIGTERM');
  await session.term.waitForText('nib exited with 143', {timeoutMs: 10_000});
  await waitFor(() => expect(running()).toEqual([]), undefined, 5000);
});

test('a background job that left the process group (setsid) ends when the TUI exits', async () => {
  const session = await start({
    script: [sse.toolCall('bash', {command: 'setsid sleep 300 & echo $! > sleep.pid; echo started'}), sse.text('done')],
    // Unsandboxed: in the sandbox a background job ends with its command (the pid namespace goes).
    args: ['--approval-mode', 'yolo', '--sandbox', 'off', 'run it'],
    shell: '"$@"; echo "nib exited with $?"; exec sleep 60',
  });
  const {term} = session;
  const sleepPid = Number(await session.waitForFile('sleep.pid', text => /^\d+\n$/.test(text)));
  await term.waitForText('done');
  // The command finished; its setsid job runs on, outside the group, until nib exits.
  expect(isAlive(sleepPid)).toBe(true);
  try {
    await term.send('C-c');
    await term.waitForText(/again to exit/i);
    await term.send('C-c');
    await term.waitForText('nib exited with 0', {timeoutMs: 10_000});
    expect(isAlive(sleepPid)).toBe(false);
  } finally {
    if (isAlive(sleepPid)) process.kill(sleepPid, 'SIGKILL');
  }
});
