import {randomBytes} from 'node:crypto';
import {readdirSync, readFileSync} from 'node:fs';

/**
 * Ending every process a command started. A process group is not enough: `setsid`, `nohup … &`
 * under `setsid` and double forks leave the group, and killing the group then misses them. What
 * they cannot leave without trying is their environment, so each command gets a marker variable
 * and the sweep finds its processes in /proc/<pid>/environ (Linux only).
 * Not covered: a process that clears its environment and execs (`env -i`), or one started by
 * another user (setuid); elsewhere than Linux only the process group is signalled.
 */
export const MARKER_VARIABLE = 'NIB_RUN_ID';

export type MarkedProcess = {pid: number; command: string};

/** Tells this nib's markers from another nib's: a nib started by a command has its own. */
const processToken = `${process.pid}-${randomBytes(6).toString('hex')}`;
let issued = 0;
let exitHookInstalled = false;

export const canSweep = process.platform === 'linux';

/**
 * A fresh marker for one command. The first one also arranges that whatever is still marked as
 * this nib's is ended when nib exits: a background server a command started does not outlive it.
 */
export function newRunMarker(): string {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // 'exit' runs on process.exit() and on a normal end alike, and allows only synchronous work.
    process.on('exit', () => endMarkedSync(value => value.startsWith(`${processToken}-`)));
  }
  issued += 1;
  return `${processToken}-${issued}`;
}

/** Every live process whose marker `matches`; zombies (already dead) have an empty environ. */
export function findMarked(matches: (marker: string) => boolean): MarkedProcess[] {
  if (!canSweep) return [];
  const prefix = Buffer.from(`${MARKER_VARIABLE}=`);
  const found: MarkedProcess[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    const marker = markerIn(environ, prefix);
    if (marker !== null && matches(marker)) found.push({pid: Number(entry), command: commandOf(entry)});
  }
  return found;
}

function markerIn(environ: Buffer, prefix: Buffer): string | null {
  let start = 0;
  while (start < environ.length) {
    let end = environ.indexOf(0, start);
    if (end === -1) end = environ.length;
    if (environ.subarray(start, start + prefix.length).equals(prefix)) {
      return environ.subarray(start + prefix.length, end).toString('utf8');
    }
    start = end + 1;
  }
  return null;
}

function commandOf(pid: string): string {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    if (args) return args.length > 60 ? `${args.slice(0, 59)}…` : args;
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone, which is the goal.
  }
}

export type SweepReport = {ended: MarkedProcess[]; survivors: MarkedProcess[]};

/**
 * SIGTERM to every marked process, SIGKILL to those still running after `graceMs`, and again for
 * any a dying process forked meanwhile (three rounds bound a fork loop). Reports what ended.
 * The first scan and SIGTERMs happen synchronously, before the returned promise: a caller that
 * signals the process group right after still sees every process listed.
 */
export async function endMarked(matches: (marker: string) => boolean, graceMs: number): Promise<SweepReport> {
  const ended = new Map<number, MarkedProcess>();
  for (let round = 0; round < 3; round += 1) {
    const found = terminate(matches, ended);
    if (found.length === 0) break;
    await waitUntil(allGone(found), graceMs);
    killSurvivors(found);
    await waitUntil(allGone(found), 1_000);
  }
  return report(ended, findMarked(matches));
}

/** The same for process exit, where nothing asynchronous runs: a short grace, slept synchronously. */
export function endMarkedSync(matches: (marker: string) => boolean, graceMs = 300): SweepReport {
  const ended = new Map<number, MarkedProcess>();
  for (let round = 0; round < 3; round += 1) {
    const found = terminate(matches, ended);
    if (found.length === 0) break;
    const deadline = performance.now() + graceMs;
    while (!allGone(found)() && performance.now() < deadline) sleepSync(20);
    killSurvivors(found);
  }
  return report(ended, findMarked(matches));
}

/** One round's start: SIGTERM to every marked process, each noted in `ended`. */
function terminate(matches: (marker: string) => boolean, ended: Map<number, MarkedProcess>): MarkedProcess[] {
  const found = findMarked(matches);
  for (const target of found) {
    ended.set(target.pid, target);
    send(target.pid, 'SIGTERM');
  }
  return found;
}

function killSurvivors(found: readonly MarkedProcess[]): void {
  for (const target of found) if (isRunning(target.pid)) send(target.pid, 'SIGKILL');
}

function allGone(found: readonly MarkedProcess[]): () => boolean {
  return () => !found.some(target => isRunning(target.pid));
}

function report(ended: Map<number, MarkedProcess>, left: MarkedProcess[]): SweepReport {
  const leftPids = new Set(left.map(target => target.pid));
  return {ended: [...ended.values()].filter(target => !leftPids.has(target.pid)), survivors: left};
}

async function waitUntil(done: () => boolean, withinMs: number): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!done() && performance.now() < deadline) await new Promise(resolve => setTimeout(resolve, 25));
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** "3 processes: bash -c … (pid 12), sleep 1001 (pid 13), …" for the tool result. */
export function describeProcesses(list: readonly MarkedProcess[], shown = 5): string {
  const names = list.slice(0, shown).map(target => `${target.command} (pid ${target.pid})`);
  if (list.length > shown) names.push(`${list.length - shown} more`);
  return `${list.length} process${list.length === 1 ? '' : 'es'}: ${names.join(', ')}`;
}

// The process group: all there is elsewhere than Linux, and the fast first signal on Linux.

export function signalGroup(pid: number | undefined, name: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, name);
  } catch {
    // ESRCH: the group is already gone, which is the goal.
  }
}

/** Whether the group still has a member (elsewhere than Linux, where the sweep knows better). */
function groupAlive(pgid: number | undefined): boolean {
  if (pgid === undefined) return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitForGroupExit(pid: number | undefined, withinMs: number): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (groupAlive(pid) && performance.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 25));
  }
}
