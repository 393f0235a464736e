/**
 * One nib in a real terminal against the loopback model server, with its own HOME/XDG dirs and a
 * temp workspace. Shared by the tmux tests; not a test file itself.
 */
import {spawnSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {mkdir, readFile, writeFile} from 'node:fs/promises';
import {dirname, join} from 'node:path';
import {afterEach, beforeAll} from 'vitest';
import {startOpenAiServer, type OpenAiServer, type Script} from '../support/openai-server.js';
import {createSandbox} from '../support/sandbox.js';
import {CLI, ROOT, startTerminal, type Terminal} from '../support/tmux.js';
import type {Persona} from '../support/server-persona.js';

export type NibSession = {
  readonly term: Terminal;
  readonly server: OpenAiServer;
  readonly workspace: string;
  readonly home: string;
  readonly read: (path: string) => Promise<string>;
  /** Polls a workspace file until `check` holds; the error shows the file and the screen. */
  readonly waitForFile: (path: string, check: (text: string) => boolean, timeoutMs?: number) => Promise<string>;
  readonly close: () => Promise<void>;
};

export type NibOptions = {
  readonly script: Script;
  /** nib's argv after the CLI path (e.g. a first prompt). */
  readonly args?: readonly string[];
  /** Files to create in the workspace first. */
  readonly files?: Readonly<Record<string, string>>;
  readonly env?: Readonly<Record<string, string>>;
  /** Wrap nib in `sh -c` with this script; `"$@"` is nib's command line. */
  readonly shell?: string;
  readonly width?: number;
  readonly height?: number;
  /** The loopback server answers like this kind of server (its window, its refusals). */
  readonly persona?: Persona;
  readonly historyLimit?: number;
};

/** The tests drive the bundle, as a person would: build it once if it is missing. */
export function ensureBuilt(): void {
  if (existsSync(CLI)) return;
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], {cwd: ROOT, stdio: 'inherit'});
  if (build.status !== 0) throw new Error('npm run build failed');
}

export async function startTmuxNib(options: NibOptions): Promise<NibSession> {
  const sandbox = await createSandbox('nib-tmux-');
  const {home, workspace} = sandbox;
  for (const [path, content] of Object.entries(options.files ?? {})) {
    await mkdir(dirname(join(workspace, path)), {recursive: true});
    await writeFile(join(workspace, path), content);
  }
  const server = await startOpenAiServer(options.script, options.persona ? {persona: options.persona} : {});
  // Colours on: the tmux tests look at them (NO_COLOR suits the piped e2e runs, not a terminal).
  const {NO_COLOR: _noColor, ...base} = sandbox.env;
  const env = {...base, TERM: 'screen-256color', OPENAI_BASE_URL: server.url, NIB_MODEL: 'nib-test-model', ...options.env};
  const nib = [process.execPath, CLI, ...(options.args ?? [])];
  const command = options.shell ? ['/bin/sh', '-c', options.shell, 'sh', ...nib] : nib;
  const term = await startTerminal({command, cwd: workspace, env, width: options.width ?? 100, height: options.height ?? 30, ...(options.historyLimit ? {historyLimit: options.historyLimit} : {})});
  return {
    term,
    server,
    workspace,
    home,
    read: (path) => readFile(join(workspace, path), 'utf8'),
    waitForFile: async (path, check, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = await readFile(join(workspace, path), 'utf8').catch((error: Error) => `<${error.message}>`);
        if (check(text)) return text;
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for ${path}; it holds:\n${text}\nthe screen:\n${await term.capture()}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: async () => {
      await term.close();
      await server.close();
      // A git child of nib (the snapshot for /undo) may still be finishing its last write: cleanup retries.
      await sandbox.cleanup();
    },
  };
}

export const numbered = (count: number) => Array.from({length: count}, (_, index) => `line ${index + 1}\n`).join('');

/** The idle prompt's placeholder: nib is waiting for the person. */
export const IDLE = 'ask nib to do something';

/**
 * For a tmux test file: checks the build once, and closes the nib each test started (its
 * terminal, server and temp dirs) after the test, pass or fail.
 */
export function nibPerTest(): (options: NibOptions) => Promise<NibSession> {
  let current: NibSession | undefined;
  beforeAll(ensureBuilt);
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return async options => (current = await startTmuxNib(options));
}
