import {spawn} from 'node:child_process';
import {existsSync, lstatSync, readdirSync, realpathSync, statSync} from 'node:fs';
import {mkdtemp, utimes} from 'node:fs/promises';
import {homedir, tmpdir} from 'node:os';
import {isAbsolute, join, relative, sep} from 'node:path';
import {KEEP_FRESH_MS, removeTree, tempPrefix} from '../../core/stale-temp.js';
import {isNibFileName, isVcsDirName} from '../../tools/fs/guards.js';
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
   * unsandboxed. With `auto` the first call starts the probe, so it costs startup nothing.
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

const NOT_INSTALLED = 'bwrap is not installed';
const INSTALL_HINT = 'install the bubblewrap package (apt-get install bubblewrap, dnf install bubblewrap)';

/** Credentials under the home directory that are read by tools, never by a project's commands. */
const HOME_SECRETS = [
  '.ssh', '.aws', '.gnupg', '.netrc', '.docker', '.git-credentials', '.npmrc', '.pypirc', '.config/gh', '.kube',
  '.cargo/credentials', '.cargo/credentials.toml', '.config/gcloud', '.azure', '.local/share/keyrings', '.password-store',
];

/** Secrets a command has no business reading: credentials, and nib's own config, data and state. */
export function secretPaths(env: NodeJS.ProcessEnv, extra: readonly string[] = []): string[] {
  const home = env['HOME'] || homedir();
  const fixed = HOME_SECRETS.map(name => join(home, name));
  // gh and the keyrings follow the XDG dirs when they are moved.
  const moved = [env['XDG_CONFIG_HOME'] && join(env['XDG_CONFIG_HOME'], 'gh'), env['XDG_DATA_HOME'] && join(env['XDG_DATA_HOME'], 'keyrings')];
  const nib = (['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME'] as const).map(base => nibDir(env, base));
  const listed = extra.map(path => (path === '~' || path.startsWith('~/') ? join(home, path.slice(1)) : path));
  return [...new Set([...fixed, ...moved, ...nib, ...listed])].filter((path): path is string => !!path && isAbsolute(path));
}

/**
 * The secret paths that exist, each where it really is. bwrap mounts from a scratch root of its
 * own, where an absolute link in a mount point (dotfile managers make them) leads nowhere: the
 * mount fails and with it the sandbox. Hiding the target hides it through the link too, wherever
 * the target lies. A dangling link has nothing behind it to hide.
 */
function hiddenPaths(paths: readonly string[]): Array<{path: string; directory: boolean}> {
  const hidden = new Map<string, boolean>();
  for (const path of paths) {
    let real;
    try {
      real = realpathSync(path);
    } catch {
      continue;
    }
    hidden.set(real, isDirectory(real));
  }
  return [...hidden].map(([path, directory]) => ({path, directory}));
}

/**
 * Directories holding host Unix sockets (docker, the D-Bus buses, ssh-agent, gpg-agent):
 * --unshare-net does not cover a socket reached through the file system, so they are emptied.
 */
export function runtimeDirs(env: NodeJS.ProcessEnv): string[] {
  const dirs = ['/run'];
  if (existsSync('/var/run') && !lstatSync('/var/run').isSymbolicLink()) dirs.push('/var/run');
  const runtime = env['XDG_RUNTIME_DIR'];
  if (runtime && isAbsolute(runtime) && isDirectory(runtime)) dirs.push(runtime);
  return [...new Set(dirs)];
}

/**
 * What the emptied runtime dirs hold that a command with the network still needs: resolv.conf
 * is often a link into /run (systemd-resolved), and without it no name resolves.
 */
function keptFromRuntime(dirs: readonly string[], network: boolean): string[] {
  if (!network) return [];
  try {
    const real = realpathSync('/etc/resolv.conf');
    return dirs.some(dir => isUnder(dir, real)) ? [real] : [];
  } catch {
    return [];
  }
}

/**
 * The workspace's own control files: its version-control dirs (a `core.fsmonitor` in
 * `.git/config` or a hook runs outside the sandbox at the person's next `git status`), `.nib/`
 * (settings, hooks, commands) and `.mcp.json`. Read again for every command, so one that an
 * earlier command created is protected from the next on.
 */
export function protectedPaths(root: string): string[] {
  let entries;
  try {
    entries = readdirSync(root, {withFileTypes: true});
  } catch {
    return [];
  }
  const paths: string[] = [];
  for (const entry of entries) {
    if (!isVcsDirName(entry.name) && !isNibFileName(entry.name)) continue;
    const path = join(root, entry.name);
    if (!entry.isSymbolicLink()) {
      paths.push(path);
      continue;
    }
    // A link out of the workspace already lands on the read-only root; one inside it is bound at its target.
    try {
      const real = realpathSync(path);
      if (real !== root && isUnder(root, real)) paths.push(real);
    } catch {
      // A dangling link has nothing behind it to protect.
    }
  }
  return paths;
}

/**
 * bwrap's arguments, in mount order: the whole file system read-only, the runtime dirs emptied,
 * then the writable parts on top, the workspace's control files read-only again, then the hidden
 * ones over everything (a secret inside the workspace stays hidden). `/tmp` is the session's
 * private dir, so the workspace bind below it still lands when the workspace itself lives under
 * /tmp (or under an emptied runtime dir).
 */
export function bwrapArgs(policy: {
  root: string;
  tmp: string;
  /** Paths that exist; bwrap cannot create a mount point on the read-only root. */
  hidden: ReadonlyArray<{path: string; directory: boolean}>;
  network: boolean;
  /** Dirs of host sockets, emptied with a tmpfs. */
  runtime?: readonly string[];
  /** Files inside the runtime dirs bound back read-only. */
  kept?: readonly string[];
  /** Existing paths inside the workspace that stay read-only. */
  readOnly?: readonly string[];
}): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const dir of policy.runtime ?? []) args.push('--tmpfs', dir);
  for (const path of policy.kept ?? []) args.push('--ro-bind', path, path);
  args.push('--bind', policy.tmp, '/tmp', '--bind', policy.root, policy.root);
  for (const path of policy.readOnly ?? []) args.push('--ro-bind', path, path);
  for (const {path, directory} of policy.hidden) {
    args.push(...(directory ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path]));
  }
  // A new pid namespace with its own /proc: nib's /proc/PID/environ (the key) is not there to read.
  args.push('--unshare-pid', '--unshare-ipc', '--die-with-parent');
  if (!policy.network) args.push('--unshare-net');
  // Their sockets are gone from the emptied dirs; an abstract D-Bus address would still reach the bus with the network on.
  args.push('--unsetenv', 'SSH_AUTH_SOCK', '--unsetenv', 'DBUS_SESSION_BUS_ADDRESS');
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
  const hidden = hiddenPaths(secretPaths(env, options.hide));
  const runtime = runtimeDirs(env);
  const policy = {root, hidden, network: options.network, runtime, kept: keptFromRuntime(runtime, options.network)};
  // The commands' /tmp is made with the probe, when the first command needs it: a session that
  // runs none (most print runs) leaves nothing behind, even when it is killed.
  let tmp = '';
  let closed = false;
  let keepFresh: NodeJS.Timeout | undefined;
  const removeTmp = () => (tmp ? removeTree(tmp).catch(() => undefined) : undefined);
  const argsNow = () => bwrapArgs({...policy, tmp, readOnly: protectedPaths(root)});
  let probed: Promise<string | null> | undefined;
  const probe = () =>
    (probed ??= (async () => {
      // A command that reaches the sandbox as the session closes would make a /tmp nothing removes.
      if (closed) return 'the session is closing';
      try {
        // Named with the pid, so a later nib removes it if this one is killed (source/core/stale-temp.ts).
        tmp = await mkdtemp(join(tmpdir(), tempPrefix('sandboxTmp')));
      } catch (error) {
        return `cannot make its /tmp in ${tmpdir()} (${error instanceof Error ? error.message : String(error)})`;
      }
      const problem = await runProbe(bwrap, [...argsNow(), '--', 'true']);
      if (problem !== null) await removeTmp();
      // Its age tells a later nib, which may not see this one's pid (another pid namespace),
      // that nobody uses it: touched while the session lives.
      else keepFresh = setInterval(() => void utimes(tmp, new Date(), new Date()).catch(() => undefined), KEEP_FRESH_MS).unref();
      return problem;
    })());
  // `on` must fail before anything runs. `auto` finds out when the first command asks: a bwrap
  // run at start competes with the first request for the CPU, and many sessions run no command.
  if (options.setting === 'on') {
    const problem = await probe();
    if (problem !== null) return unavailable(options, problem);
  }
  const sandbox: Sandbox = {
    ready: async () => {
      const problem = await probe();
      if (problem === null) return null;
      const said = unavailable(options, problem);
      return said.ok ? said.notice : said.error;
    },
    wrap: argv => [bwrap, ...argsNow(), '--', ...argv],
    network: options.network,
    close: async () => {
      closed = true;
      await probed;
      clearInterval(keepFresh);
      await removeTmp();
    },
  };
  return {ok: true, notice: null, sandbox};
}

function unavailable(options: SandboxOptions, reason: string): SandboxStart {
  // Installing is the way out only when bwrap is missing; one that is there and fails needs other help.
  const isMissing = reason === NOT_INSTALLED;
  if (options.setting === 'on') {
    return {ok: false, error: `--sandbox on: commands cannot be sandboxed: ${reason}; ${isMissing ? `${INSTALL_HINT}, or ` : ''}run with --sandbox off`};
  }
  return {ok: true, sandbox: null, notice: `Commands run unsandboxed: ${reason}${isMissing ? `; ${INSTALL_HINT} to confine them` : ''}.`};
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
      resolve((error as NodeJS.ErrnoException).code === 'ENOENT' ? NOT_INSTALLED : `bwrap failed to start (${error.message})`);
    });
    child.once('close', code => {
      clearTimeout(timer);
      const line = stderr.trim().split('\n')[0];
      resolve(code === 0 ? null : `bwrap is installed but fails here (${line || `exit ${code}`})`);
    });
  });
}

function isUnder(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
