import {mkdtemp, realpath, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach} from 'vitest';
import {createReadLedger} from '../../source/tools/index.js';
import type {ToolContext} from '../../source/core/tool.js';

/** A fresh real temp directory per test, removed afterwards; its real path is the workspace root. */
export function useTempDirs(): () => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map(dir => rm(dir, {recursive: true, force: true})));
  });
  return async () => {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'nib-tools-')));
    made.push(dir);
    return dir;
  };
}

export function contextFor(root: string, extra: Partial<ToolContext> = {}): ToolContext {
  return {root, ledger: createReadLedger(), ...extra};
}

export const never = new AbortController().signal;
