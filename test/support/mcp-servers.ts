/**
 * Real MCP servers for tests: the reference "everything" server (a devDependency) and the fault
 * and raw servers in this folder, as the `command`/`args` a config entry names, plus a check for leftover
 * processes. Each entry carries a marker argument (both servers ignore extra arguments) so a test
 * can find exactly the processes it started.
 */
import {execFile} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {fileURLToPath} from 'node:url';

export const EVERYTHING = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
export const FAULT = fileURLToPath(new URL('./mcp-fault-server.mjs', import.meta.url));
export const RAW = fileURLToPath(new URL('./mcp-raw-server.mjs', import.meta.url));

export function marker(): string {
  return `nib-mcp-test-${randomBytes(6).toString('hex')}`;
}

export function everythingEntry(mark: string): {command: string; args: string[]} {
  return {command: process.execPath, args: [EVERYTHING, 'stdio', mark]};
}

export function faultEntry(mark: string, env: Record<string, string> = {}): {command: string; args: string[]; env: Record<string, string>} {
  return {command: process.execPath, args: [FAULT, mark], env};
}

/** A server that answers outside the spec: a bad tool definition, an unreadable image (or, with `tools-not-a-list`, a tool list that is no list). */
export function rawEntry(mark: string, ...modes: string[]): {command: string; args: string[]} {
  return {command: process.execPath, args: [RAW, mark, ...modes]};
}

/** A server that starts and then never answers `initialize`. */
export function silentEntry(mark: string): {command: string; args: string[]} {
  return {command: process.execPath, args: ['-e', 'process.stdin.resume(); setInterval(() => {}, 1e6)', mark]};
}

/** Pids of live processes whose command line contains `mark`. */
export function processesWith(mark: string): Promise<number[]> {
  return new Promise(resolve => {
    execFile('ps', ['-eo', 'pid=,args='], (_error, stdout) => {
      const pids = String(stdout)
        .split('\n')
        .filter(line => line.includes(mark) && !line.includes('ps -eo'))
        .map(line => Number(line.trim().split(/\s+/)[0]));
      resolve(pids.filter(pid => Number.isInteger(pid) && pid !== process.pid));
    });
  });
}
