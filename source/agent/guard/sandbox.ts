import {spawn} from 'node:child_process';
import {existsSync, statSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {homedir, tmpdir} from 'node:os';
import {isAbsolute, join} from 'node:path';
import {nibDir} from '../config/xdg.js';

import {SANDBOX_SETTINGS, type SandboxSetting} from '../config/flags.js';

export {SANDBOX_SETTINGS, type SandboxSetting};

/** What a sandboxed command may reach, besides the workspace and its private temp dir. */
export type SandboxOptions = {
  setting: SandboxSetting;
  /** Whether commands get the network (off by default: `sandbox.network: true` in the config). */
  network: boolean;
  /** More paths to hide, from the config (`~/` is the home directory). */
  hide: readonly string[];
};

/** A started sandbox: turns a command's argv into one that runs confined. */
export type Sandbox = {
  /**
   * null once the probe showed bwrap works; otherwise the one line saying why commands run
   * unsandboxed. With `auto` the probe runs in the background, so it costs startup nothing.
   */
  ready: () => Promise<string | null>;
  wrap: (argv: readonly string[]) => string[];
  network: boolean;
  /** Removes the private temp dir. */
  close: () => Promise<void>;
};

export type SandboxStart =
  | {ok: true; sandbox: Sandbox | null; notice: string | null}
  | {ok: false; error: string};

const INSTALL_HINT = 'install the bubblewrap package (apt-get install bubblewrap, dnf install bubblewrap)';

/** Secrets a command has no business reading: credentials, and nib's own config, data and state. */
export function secretPaths(env: NodeJS.ProcessEnv, extra: readonly string[] = []): string[] {
  const home = env['HOME'] || homedir();
  const fixed = ['.ssh', '.aws', '.gnupg', '.netrc', '.docker'].map(name => join(home, name));
  const nib = (['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME'] as const).map(base => nibDir(env, base));
  const listed = extra.map(path => (path === '~' || path.startsWith('~/') ? join(home, path.slice(1)) : path)).filter(path => isAbsolute(path));
  return [...new Set([...fixed, ...nib, ...listed])];
}

/**
 * bwrap's arguments, in mount order: the whole file system read-only, then the writable parts on
 * top, then the hidden ones over everything (a secret inside the workspace stays hidden).
 * `/tmp` is the session's private dir, so the workspace bind below it still lands when the
 * workspace itself lives under /tmp.
 */
export function bwrapArgs(policy: {
  root: string;
  tmp: string;
  /** Paths that exist; bwrap cannot create a mount point on the read-only root. */
  hidden: ReadonlyArray<{path: string; directory: boolean}>;
  network: boolean;
}): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--bind', policy.tmp, '/tmp'];
  args.push('--bind', policy.root, policy.root);
  for (const {path, directory} of policy.hidden) {
    args.push(...(directory ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path]));
  }
  // A new pid namespace with its own /proc: nib's /proc/PID/environ (the key) is not there to read.
  args.push('--unshare-pid', '--unshare-ipc', '--die-with-parent');
  if (!policy.network) args.push('--unshare-net');
  args.push('--setenv', 'TMPDIR', '/tmp', '--chdir', policy.root);
  return args;
}

/**
 * Starts the sandbox for a session, probing once that bwrap runs here with exactly the arguments
 * commands will get: containers differ in what namespaces they allow, and a probe with other
 * flags would prove nothing.
 */
export async function startSandbox(options: SandboxOptions, root: string, env: NodeJS.ProcessEnv, bwrap = 'bwrap'): Promise<SandboxStart> {
  if (options.setting === 'off') return {ok: true, sandbox: null, notice: null};
  if (process.platform !== 'linux') return unavailable(options, `the sandbox needs Linux (this is ${process.platform})`);
  const tmp = await mkdtemp(join(tmpdir(), 'nib-sandbox-'));
  const hidden = secretPaths(env, options.hide)
    .filter(path => existsSync(path))
    .map(path => ({path, directory: isDirectory(path)}));
  const args = bwrapArgs({root, tmp, hidden, network: options.network});
  const probed = runProbe(bwrap, [...args, '--', 'true']).then(async problem => {
    if (problem !== null) await rm(tmp, {recursive: true, force: true});
    return problem;
  });
  // `on` must fail before anything runs; `auto` finds out by the first command.
  if (options.setting === 'on') {
    const problem = await probed;
    if (problem !== null) return unavailable(options, problem);
  }
  const sandbox: Sandbox = {
    ready: async () => {
      const problem = await probed;
      if (problem === null) return null;
      const said = unavailable(options, problem);
      return said.ok ? said.notice : said.error;
    },
    wrap: argv => [bwrap, ...args, '--', ...argv],
    network: options.network,
    close: async () => {
      await probed;
      await rm(tmp, {recursive: true, force: true});
    },
  };
  return {ok: true, notice: null, sandbox};
}

function unavailable(options: SandboxOptions, reason: string): SandboxStart {
  if (options.setting === 'on') {
    return {ok: false, error: `--sandbox on: commands cannot be sandboxed: ${reason}; ${INSTALL_HINT}, or run with --sandbox off`};
  }
  return {ok: true, sandbox: null, notice: `Commands run unsandboxed: ${reason}; ${INSTALL_HINT} to confine them.`};
}

/** null when bwrap ran `true`; otherwise why not, in one line. */
function runProbe(file: string, args: string[]): Promise<string | null> {
  return new Promise(resolve => {
    let stderr = '';
    const child = spawn(file, args, {stdio: ['ignore', 'ignore', 'pipe']});
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.stderr.on('data', chunk => (stderr += chunk));
    child.once('error', error => {
      clearTimeout(timer);
      resolve((error as NodeJS.ErrnoException).code === 'ENOENT' ? 'bwrap is not installed' : `bwrap failed to start (${error.message})`);
    });
    child.once('close', code => {
      clearTimeout(timer);
      const line = stderr.trim().split('\n')[0];
      resolve(code === 0 ? null : `bwrap does not work here (${line || `exit ${code}`})`);
    });
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
