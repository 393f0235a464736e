import {spawn} from 'node:child_process';
import {describe, expect, test} from 'vitest';
import {describeProcesses, endMarked, findMarked, MARKER_VARIABLE, newRunMarker} from '../../source/tools/process-sweep.js';

/** Starts `script` in its own session (as `setsid` would) with `marker` in its environment. */
function startMarked(marker: string, script: string): number {
  const child = spawn('sh', ['-c', script], {env: {...process.env, [MARKER_VARIABLE]: marker}, detached: true, stdio: 'ignore'});
  child.unref();
  return child.pid!;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise(resolve => setTimeout(resolve, 10));
}

describe.skipIf(process.platform !== 'linux')('the process sweep (Linux /proc)', () => {
  test('finds only the processes carrying exactly its marker, ends them, and names them', async () => {
    const mine = newRunMarker();
    const other = newRunMarker();
    const first = startMarked(mine, 'exec sleep 101');
    const second = startMarked(mine, 'sleep 102 & exec sleep 103');
    const bystander = startMarked(other, 'exec sleep 104');
    try {
      // The forked `sleep 102` shows as the shell (its parent's command line) until it execs.
      const commands = () => findMarked(value => value === mine).map(p => p.command).sort().join(', ');
      await until(() => commands() === 'sleep 101, sleep 102, sleep 103');
      expect(commands()).toBe('sleep 101, sleep 102, sleep 103');
      const report = await endMarked(value => value === mine, 500);
      expect(report.ended.map(p => p.pid)).toContain(first);
      expect(report.ended.map(p => p.pid)).toContain(second);
      expect(report.ended).toHaveLength(3);
      expect(report.survivors).toEqual([]);
      expect(findMarked(value => value === mine)).toEqual([]);
      expect(findMarked(value => value === other).map(p => p.pid)).toEqual([bystander]);
    } finally {
      await endMarked(value => value === mine || value === other, 100);
    }
  });

  test('a process that ignores SIGTERM is killed after the grace', async () => {
    const marker = newRunMarker();
    startMarked(marker, "trap '' TERM; sleep 105 & wait");
    await until(() => findMarked(value => value === marker).length === 2);
    const report = await endMarked(value => value === marker, 200);
    expect(report.ended).toHaveLength(2);
    expect(report.survivors).toEqual([]);
  });
});

test('describeProcesses names the first five and counts the rest', () => {
  const list = Array.from({length: 7}, (_, i) => ({pid: 100 + i, command: `sleep ${i}`}));
  expect(describeProcesses(list.slice(0, 1))).toBe('1 process: sleep 0 (pid 100)');
  expect(describeProcesses(list)).toBe(
    '7 processes: sleep 0 (pid 100), sleep 1 (pid 101), sleep 2 (pid 102), sleep 3 (pid 103), sleep 4 (pid 104), 2 more',
  );
});
