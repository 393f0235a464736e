/**
 * Runs a program in a real terminal: a detached tmux session of a fixed size on a private
 * socket, driven with `send-keys` and read with `capture-pane`.
 *
 *   const term = await startTerminal({command: ['node', CLI, 'hi'], cwd, env, width: 100, height: 30});
 *   await term.waitForText('Allow write?');
 *   await term.send('y');
 *   const colored = await term.capture({colors: true});
 *   await term.close();
 *
 * Each terminal has its own tmux server (`tmux -L nib-test-<random>`), so tests never see each
 * other's sessions or a person's tmux. The command runs under `env -i` with exactly `env`.
 */
import {execFile} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {fileURLToPath} from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The bundle under test; NIB_TEST_CLI points the tests at another build (e.g. a work-in-progress one). */
export const CLI = process.env['NIB_TEST_CLI'] ?? `${ROOT}dist/cli.js`;

export type TerminalOptions = {
  /** argv of the program; run directly, not through a shell. */
  readonly command: readonly string[];
  readonly cwd: string;
  /** The program's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly width?: number;
  readonly height?: number;
  /** Lines of scrollback the pane keeps (tmux's default is 2,000). */
  readonly historyLimit?: number;
};

export type Terminal = {
  /** tmux key names (`Enter`, `Escape`, `C-c`, `PageDown`) or single characters. */
  readonly send: (...keys: string[]) => Promise<void>;
  /** Literal text, no key-name lookup. */
  readonly type: (text: string) => Promise<void>;
  /** The visible screen; with `colors`, SGR escapes included (`capture-pane -e`). */
  readonly capture: (options?: {colors?: boolean}) => Promise<string>;
  /** Resolves with the screen once `check` holds; rejects with the screen after `timeoutMs`. */
  readonly waitFor: (check: (screen: string) => boolean, options?: {timeoutMs?: number; colors?: boolean}) => Promise<string>;
  readonly waitForText: (text: string | RegExp, options?: {timeoutMs?: number; colors?: boolean}) => Promise<string>;
  /**
   * Sends `key` and waits for `check`; sends it again (at most 3 times in all, logging each
   * retry) if the screen still satisfies `unchanged`, i.e. the key was not taken. Ink subscribes
   * a new component's key handler in an effect after its first frame is on screen, so a key
   * sent the instant a prompt appears can land before anyone listens.
   */
  readonly press: (key: string, check: () => Promise<boolean>, unchanged: (screen: string) => boolean) => Promise<void>;
  /** The whole scrollback and screen, wrapped rows joined (`capture-pane -J -S -`). */
  readonly history: () => Promise<string>;
  /**
   * Runs `action` and resolves with the first match of `pattern` in the scrollback that was not
   * there before it. An answer is told from the ones before by counting: a line already on screen
   * never passes for the new one, however long the program takes to draw it.
   */
  readonly nextInHistory: (pattern: RegExp, action: () => Promise<void>, options?: {timeoutMs?: number}) => Promise<string>;
  /** Any other tmux command for the pane (`-t` is added), e.g. `resize-window -x 80`. */
  readonly tmux: (command: string, ...args: string[]) => Promise<string>;
  /** A tmux format for the pane, e.g. `#{cursor_flag}` or `#{pane_dead}`. */
  readonly query: (format: string) => Promise<string>;
  readonly close: () => Promise<void>;
};

function tmux(socket: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-L', socket, '-f', '/dev/null', ...args], {encoding: 'utf8'}, (error, stdout, stderr) => {
      if (error) reject(new Error(`tmux ${args[0]} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

export async function startTerminal(options: TerminalOptions): Promise<Terminal> {
  const socket = `nib-test-${randomBytes(6).toString('hex')}`;
  const target = 'nib';
  const env = Object.entries(options.env).map(([key, value]) => `${key}=${value}`);
  // history-limit applies to panes created after it is set, so it goes first in the same server.
  const limit = options.historyLimit ? ['set-option', '-g', 'history-limit', String(options.historyLimit), ';'] : [];
  await tmux(socket, [
    'start-server', ';', ...limit,
    'new-session', '-d', '-s', target,
    '-x', String(options.width ?? 100), '-y', String(options.height ?? 30),
    '-c', options.cwd,
    'env', '-i', ...env, ...options.command,
  ]);
  // Keep the pane after the program exits, so a test can read what it left behind.
  await tmux(socket, ['set-option', '-t', target, 'remain-on-exit', 'on']);

  const history = () => tmux(socket, ['capture-pane', '-p', '-J', '-S', '-', '-t', target]);
  const capture = async ({colors = false} = {}) =>
    tmux(socket, ['capture-pane', '-p', '-t', target, ...(colors ? ['-e'] : [])]);

  const waitFor = async (check: (screen: string) => boolean, {timeoutMs = 10_000, colors = false} = {}) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await capture({colors});
      if (check(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms; the screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  return {
    send: async (...keys) => void (await tmux(socket, ['send-keys', '-t', target, ...keys])),
    type: async (text) => void (await tmux(socket, ['send-keys', '-t', target, '-l', text])),
    capture,
    waitFor,
    waitForText: (text, waitOptions) =>
      waitFor((screen) => (typeof text === 'string' ? screen.includes(text) : text.test(screen)), waitOptions),
    press: async (key, check, unchanged) => {
      for (let attempt = 1; ; attempt++) {
        await tmux(socket, ['send-keys', '-t', target, key]);
        const deadline = Date.now() + 1500;
        while (Date.now() < deadline) {
          if (await check()) return;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const screen = await capture();
        if (attempt >= 3 || !unchanged(screen)) throw new Error(`key ${key} had no effect; the screen:\n${screen}`);
        console.warn(`tmux: key ${key} was not taken, sending it again (attempt ${attempt + 1})`);
      }
    },
    history,
    nextInHistory: async (pattern, action, {timeoutMs = 10_000} = {}) => {
      const all = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
      const matches = async () => (await history()).match(all) ?? [];
      const seen = (await matches()).length;
      await action();
      for (const deadline = Date.now() + timeoutMs; ; ) {
        const now = await matches();
        if (now.length > seen) return now[seen]!;
        if (Date.now() > deadline) throw new Error(`no new ${pattern} within ${timeoutMs} ms; the screen:\n${await capture()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    tmux: (command, ...args) => tmux(socket, [command, '-t', target, ...args]),
    query: async (format) => (await tmux(socket, ['display-message', '-p', '-t', target, format])).trim(),
    close: async () => {
      await tmux(socket, ['kill-server']).catch(() => {
        // Already gone: the session ended and took the server with it.
      });
    },
  };
}
