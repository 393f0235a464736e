import {render, Static, useApp, useInput} from 'ink';
import {homedir} from 'node:os';
import type {Config} from './agent/config/config.js';
import {createRedactor, redactUrlCredentials} from './agent/config/redact.js';
import {openSession, resolveWorkspace} from './agent/session/open.js';
import {trustQuestion} from './agent/guard/open.js';
import {rememberTrust} from './agent/guard/trust.js';
import {askTrust} from './components/TrustPrompt.js';
import {modelFromServer} from './agent/session/server-model.js';
import {createPromptHistory, promptHistoryPath} from './agent/session/prompt-history.js';
import {App} from './app.js';
import {withCustomCommands} from './commands/custom.js';
import {textTools} from './components/text-tools.js';
import {slashCommands} from './commands/slash.js';
import {FirstRun} from './components/FirstRun.js';
import {MarkdownLoader} from './components/Markdown.js';
import {createTheme, ThemeContext} from './components/theme.js';
import type {EarlyPrompt} from './early-prompt.js';
import {collectWhenIdle, setV8Flags} from './idle-gc.js';
import {exitCodeFor, onStopSignals} from './core/stop-signals.js';
import {ResizeSafeStdout, terminalReflows} from './hooks/resize-safe-stdout.js';

/** Shown when nib cannot start a session yet; any key leaves. */
function FirstRunScreen({problem, configPath}: {readonly problem: string; readonly configPath: string}) {
  const {exit} = useApp();
  useInput(() => exit());
  // Printed once as static output: a frame as tall as the terminal is drawn without its final
  // newline, and the shell prompt would land on its last line after exit.
  return <Static items={['first-run']}>{key => <FirstRun key={key} problem={problem} configPath={configPath} />}</Static>;
}

/** The markdown libraries are most of this bundle: they load when the transcript gets its first item (see MarkdownLoader). */
const loadMarkdown = () => import('./components/markdown-render.js').then(module => module.createMarkdownRenderer(textTools));

/** `/home/al/x` as `~/x`; a sibling such as `/home/alice` is not under `/home/al`. */
function tildify(path: string, home: string): string {
  return path === home || path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

export type InteractiveOptions = {
  /** The prompt line drawn before this module loaded (cli.tsx); the app takes over its keys. */
  early?: EarlyPrompt | undefined;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  env?: NodeJS.ProcessEnv;
};

/**
 * Runs the full-screen session until the person leaves; returns the exit code. The terminal is
 * given back (raw mode off, cursor shown) on every way out, a crash included.
 */
export async function runInteractive(config: Config, options: InteractiveOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const theme = createTheme(env);
  // No model configured: the server may name one (openSession asks again and says which).
  const chosen = await modelFromServer(config, true);
  const problem = chosen.ok ? chosen.value.problem : chosen.error;
  const stdin = options.stdin ?? process.stdin;
  // Raw mode from the start, not from Ink's first input hook (a frame later, after the session
  // opens): keys typed meanwhile would echo, and Ctrl+C would be a signal rather than a key.
  // Ink turns it off when it unmounts; Node restores the terminal on any other exit.
  if (stdin.isTTY) stdin.setRawMode(true);
  const stdout = options.stdout ?? process.stdout;
  // A resize redraws only the live region; see ResizeSafeStdout for why Ink needs help there.
  const safeStdout = stdout.isTTY ? new ResizeSafeStdout(stdout, terminalReflows(env)) : undefined;
  const renderOptions = {
    stdin,
    stdout: (safeStdout as NodeJS.WriteStream | undefined) ?? stdout,
    stderr: safeStdout?.errorStream(process.stderr) ?? process.stderr,
    exitOnCtrlC: false,
    patchConsole: true,
    maxFps: 30,
    // Rewrites only the lines that changed: while an answer streams, the status bar and the
    // prompt stay as they are instead of being redrawn with every frame.
    incrementalRendering: true,
  };
  if (problem) {
    await options.early?.discard();
    const instance = render(
      <ThemeContext value={theme}>
        <FirstRunScreen problem={redactUrlCredentials(problem)} configPath={config.configPath} />
      </ThemeContext>,
      renderOptions,
    );
    await instance.waitUntilExit();
    safeStdout?.detach();
    return 0;
  }
  // A project's allow rules and hooks count once the person trusts the workspace; asked once.
  const root = await resolveWorkspace(config.cwd);
  const items = root.ok ? await trustQuestion(config, root.value, env) : null;
  if (root.ok && items) {
    await options.early?.discard();
    const trusted = await askTrust({workspace: tildify(root.value, env['HOME'] || homedir()), items, theme, renderOptions});
    const saved = await rememberTrust(env, root.value, trusted);
    if (!saved.ok) process.stderr.write(`nib: ${saved.error}\n`);
  }
  // The session (new, --continue, --resume ID; a bare --resume opens the picker in the app).
  const opened = await openSession(config, env, {canAsk: true});
  if (!opened.ok) {
    await options.early?.discard();
    if (stdin.isTTY) stdin.setRawMode(false);
    process.stderr.write(`nib: ${opened.error}\n`);
    return 1;
  }
  const session = opened.value;
  const redactSecrets = createRedactor(env, [{name: 'apiKey', value: config.apiKey}]);
  const history = createPromptHistory(promptHistoryPath(env), redactSecrets);
  const initialHistory = await history.load();
  const cwdLabel = tildify(session.root, env['HOME'] || homedir());
  const {commands, notices} = await withCustomCommands(slashCommands, session.root, env);
  const stop = new AbortController();
  const typedAhead = await options.early?.handOver();
  const instance = render(
    <ThemeContext value={theme}>
      <MarkdownLoader load={loadMarkdown}>
        <App
          session={session}
          history={history}
          initialHistory={initialHistory}
          cwdLabel={cwdLabel}
          commands={commands}
          loadCommands={() => withCustomCommands(slashCommands, session.root, env)}
          notices={notices}
          openPicker={config.resume === true}
          stop={stop.signal}
          {...(config.prompt ? {initialPrompt: config.prompt} : {})}
          {...(typedAhead ? {typedAhead} : {})}
        />
      </MarkdownLoader>
    </ThemeContext>,
    renderOptions,
  );
  // Once the first frame is out: the server is asked its window, and the snapshot index and the
  // tools load while the person types.
  setImmediate(() => session.warmUp());
  setV8Flags();
  const stopCollecting = safeStdout ? collectWhenIdle({onBusy: listener => session.onBusy(listener), lastActivity: () => safeStdout.lastWriteAt}) : () => {};
  // Ink restores the terminal when it unmounts; a crash must unmount it too, or the shell is left
  // in raw mode with no cursor.
  // Once only: after the terminal is gone (SIGHUP) every write fails with EIO, and reporting that
  // failure by writing would raise it again, forever, at full CPU.
  let crashed = false;
  const onCrash = (error: unknown) => {
    if (crashed) return;
    crashed = true;
    process.exitCode = 1;
    instance.unmount();
    try {
      process.stderr.write(`nib: unexpected error: ${redactSecrets(error instanceof Error ? error.message : String(error))}\n`);
    } catch {
      // Nowhere left to report it.
    }
  };
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  // The terminal closed (SIGHUP) or someone asked nib to stop (SIGTERM): interrupt the turn so
  // its command dies too, flush the log, give the terminal back.
  let stoppedBy: NodeJS.Signals | undefined;
  const removeStopHandlers = onStopSignals(['SIGTERM', 'SIGHUP'], signal => {
    stoppedBy = signal;
    stop.abort();
    // A turn that does not wind down (longer than a command's kill grace), or an Ink that cannot
    // finish its last write to a terminal that is gone, does not keep nib alive.
    setTimeout(() => {
      instance.unmount();
      void session.close().finally(() => process.exit(exitCodeFor(signal)));
    }, 5000).unref();
  });
  try {
    await instance.waitUntilExit();
    await session.close();
    if (stoppedBy) return exitCodeFor(stoppedBy);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch {
    return stoppedBy ? exitCodeFor(stoppedBy) : 1;
  } finally {
    safeStdout?.detach();
    stopCollecting();
    removeStopHandlers();
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
  }
}
