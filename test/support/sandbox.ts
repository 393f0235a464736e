/**
 * A scratch HOME, workspace and temp dir for one test: every XDG dir points inside it, so no
 * user config leaks in and everything nib writes (logs, snapshots, history) can be inspected and
 * is removed afterwards. Shared by the in-process, e2e and tmux tests.
 */
import {mkdir, mkdtemp, realpath, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

/** A key that must never show up in anything nib prints or writes. */
export const TEST_API_KEY = 'sk-nib-test-7f3a9c2e5b1d4a86-DO-NOT-LEAK';

export type Sandbox = {
  /** Temp root holding home/ and workspace/. */
  root: string;
  home: string;
  workspace: string;
  env: NodeJS.ProcessEnv;
  cleanup: () => Promise<void>;
};

export async function createSandbox(prefix = 'nib-test-'): Promise<Sandbox> {
  const root = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  const home = join(root, 'home');
  const workspace = join(root, 'workspace');
  await mkdir(home, {recursive: true});
  await mkdir(workspace, {recursive: true});
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    TMPDIR: join(root, 'tmp'),
    OPENAI_API_KEY: TEST_API_KEY,
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
  };
  await mkdir(env.TMPDIR!, {recursive: true});
  return {root, home, workspace, env, cleanup: () => rm(root, {recursive: true, force: true, maxRetries: 5})};
}

