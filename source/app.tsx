import {Box, Static, Text, render, useApp, useInput, useWindowSize} from 'ink';
import {homedir} from 'node:os';
import {useCallback, useEffect, useRef, useState} from 'react';
import type {Config} from './agent/config/config.js';
import {readinessProblem} from './agent/config/config.js';
import {createProvider} from './agent/provider/client.js';
import {createRedactor} from './agent/config/redact.js';
import {setupAgent, type AgentSetup} from './agent/session/setup.js';
import {exitCodeFor, onStopSignals} from './core/stop-signals.js';
import {ApprovalPrompt} from './components/ApprovalPrompt.js';
import {FirstRun} from './components/FirstRun.js';
import {MarkdownLoader} from './components/Markdown.js';
import {LiveTurn} from './components/LiveTurn.js';
import {PromptInput, slashMatches, slashMenuRows} from './components/PromptInput.js';
import {StatusBar} from './components/StatusBar.js';
import {Transcript} from './components/Transcript.js';
import {budgetRows} from './components/layout.js';
import {createTheme, ThemeContext} from './components/theme.js';
import {useAgent, type Agent} from './hooks/use-agent.js';
import {useWorkspaceSession} from './hooks/use-workspace-session.js';
import {WorkspaceSession, sessionChoice} from './agent/session/workspace.js';
import {createHistoryStore, historyPath, type HistoryStore} from './agent/session/prompt-history.js';
import {useHistory} from './hooks/use-history.js';
import {useRedraw} from './hooks/use-redraw.js';
import {ResizeSafeStdout, terminalReflows} from './hooks/resize-safe-stdout.js';
import {useSessionKeys} from './hooks/use-session-keys.js';
import {runSlashCommand, slashCommands, type SlashCommand} from './commands/slash.js';
import {defaultRegistry} from './tools/index.js';
import {useExternalEditor} from './hooks/use-external-editor.js';

export type AppProps = {
  readonly config: Config;
  readonly setup: AgentSetup;
  readonly history: HistoryStore;
  /** Earlier prompts, loaded before the session opens. */
  readonly initialHistory: readonly string[];
  /** Sent as soon as the session opens (`nib "fix the test"`). */
  readonly initialPrompt?: string;
  /** The working directory as the status bar shows it. */
  readonly cwdLabel: string;
  /** Slash commands on offer (the default table unless a test narrows it). */
  readonly commands?: readonly SlashCommand[];
  /** #5: the session log, resume, undo and compaction; null when it could not be opened. */
  readonly session?: WorkspaceSession | null;
  /** #5: open the session picker first (`nib --resume` without an id). */
  readonly openPicker?: boolean;
  /** Aborted on SIGTERM/SIGHUP: the turn is interrupted (its command killed), then the app exits. */
  readonly stop?: AbortSignal;
};

/** The interactive session. It wires hooks to components; the logic lives in both. */
export function App({config, setup, history, initialHistory, initialPrompt, cwdLabel, commands = slashCommands, session = null, openPicker, stop}: AppProps) {
  const {exit} = useApp();
  const {columns, rows} = useWindowSize();
  const width = Math.max(20, columns);
  const {count: redrawn, redraw} = useRedraw();
  // useAgent takes the session's turn hooks, and the session's commands drive the agent: a ref breaks the cycle.
  const agentRef = useRef<Agent | null>(null);
  const sessionUi = useWorkspaceSession({
    session,
    setup,
    agent: agentRef,
    openPicker,
    rows,
    width,
    model: config.model ?? '',
  });
  const agent = useAgent({
    setup,
    model: config.model ?? '',
    mode: config.approvalMode,
    maxRounds: config.maxRounds,
    ...(sessionUi.hooks ? {hooks: sessionUi.hooks} : {}),
    initialEvents: sessionUi.initialEvents,
  });
  agentRef.current = agent;
  const {state} = agent;
  const prompts = useHistory(history, initialHistory);
  const edit = useExternalEditor();
  const [input, setInput] = useState('');
  const approval = state.approvals[0];
  const isApproving = approval !== undefined;

  const setModel = useCallback(
    (model: string) => {
      setup.provider = createProvider({baseURL: config.baseURL, apiKey: config.apiKey ?? 'no-key', model, idleTimeoutMs: config.idleTimeoutMs});
      agent.dispatch({type: 'set-model', model});
    },
    [setup, config, agent.dispatch],
  );

  // #5: a cleared conversation goes on in a new session log, so resuming the old one stays true.
  const clear = useCallback(() => {
    agent.clear();
    void sessionUi.actions.clear();
  }, [agent.clear, sessionUi.actions]);

  const submit = useCallback(
    (text: string) => {
      setInput('');
      prompts.add(text);
      const context = {state, dispatch: agent.dispatch, setMode: agent.setMode, setModel, clear, exit, redraw, tools: defaultRegistry.tools, session: sessionUi.actions};
      void runSlashCommand(text, context, commands).then(isCommand => {
        if (!isCommand) agent.submit(text);
      });
    },
    [state, agent, setModel, clear, exit, redraw, prompts.add, commands, sessionUi.actions],
  );

  const started = useRef(false);
  useEffect(() => {
    if (started.current || !initialPrompt) return;
    started.current = true;
    agent.submit(initialPrompt);
  }, [initialPrompt, agent.submit]);

  // Exits once the interrupted turn has wound down: its command group is killed and its events are
  // in the session log.
  const [isStopping, setStopping] = useState(false);
  useEffect(() => {
    if (!stop) return;
    const onStop = () => {
      agent.interrupt();
      setStopping(true);
    };
    if (stop.aborted) onStop();
    else stop.addEventListener('abort', onStop, {once: true});
    return () => stop.removeEventListener('abort', onStop);
  }, [stop, agent.interrupt]);
  useEffect(() => {
    if (isStopping && !state.busy) exit();
  }, [isStopping, state.busy, exit]);

  const {isExitArmed} = useSessionKeys({
    isBusy: state.busy,
    isInputEmpty: input === '',
    isActive: !isApproving && sessionUi.overlay === null,
    onInterrupt: agent.interrupt,
    onClearInput: () => setInput(''),
    onExit: () => exit(),
    onCycleMode: agent.cycleMode,
  });

  const editPrompt = useCallback(async () => {
    const result = await edit(input, '.md');
    if (result.ok) setInput(result.value.replace(/\n+$/, ''));
  }, [edit, input]);

  const menuRows = Math.min(slashMenuRows, slashMatches(input, commands).length);
  const budget = budgetRows({rows, inputLines: input.split('\n').length, menuRows, queued: state.queue.length, isApproving});

  return (
    <>
      <Transcript items={state.transcript} epoch={state.epoch} layout={redrawn} width={width} />
      <Box flexDirection="column" width={width}>
        <LiveTurn live={state.live} now={state.now} width={width} maxRows={budget.live} />
        {sessionUi.overlay ?? (approval ? (
          <ApprovalPrompt
            key={approval.id}
            request={approval}
            rows={budget.approval}
            columns={width}
            onDecision={decision => agent.decide(approval.id, decision)}
            onEdit={edit}
          />
        ) : (
          <>
            {state.queue.map((queued, index) => (
              <Text key={index} dimColor wrap="truncate-end">
                queued: {queued.split('\n', 1)[0]}
              </Text>
            ))}
            <PromptInput
              value={input}
              onChange={setInput}
              onSubmit={submit}
              history={prompts.entries}
              commands={commands}
              isActive={!isApproving}
              onEditInEditor={() => void editPrompt()}
              placeholder={state.busy ? 'working… type to queue a message' : 'ask nib to do something, or / for commands'}
            />
          </>
        ))}
        <StatusBar
          model={state.model}
          mode={state.mode}
          alwaysTools={state.alwaysTools}
          // #5: the fill the next request will carry: the API's usage, or an estimate before the
          // first one (a resumed session) and after a compaction.
          usage={session ? {...state.usage, lastPromptTokens: session.tracker.tokens(setup.history)} : state.usage}
          contextWindow={config.contextWindow}
          cwd={cwdLabel}
          keyState={isExitArmed ? 'confirm-exit' : isApproving || sessionUi.overlay !== null ? 'approval' : state.busy ? 'busy' : 'idle'}
          width={width}
        />
      </Box>
    </>
  );
}

/** Shown when nib cannot start a session yet; any key leaves. */
function FirstRunScreen({problem, configPath}: {readonly problem: string; readonly configPath: string}) {
  const {exit} = useApp();
  useInput(() => exit());
  // Printed once as static output: a frame as tall as the terminal is drawn without its final
  // newline, and the shell prompt would land on its last line after exit.
  return <Static items={['first-run']}>{key => <FirstRun key={key} problem={problem} configPath={configPath} />}</Static>;
}

/** The markdown libraries are most of this bundle: they load when the transcript gets its first item (see MarkdownLoader). */
const loadMarkdown = () => import('./components/markdown-render.js').then(module => module.createMarkdownRenderer());

/** `/home/al/x` as `~/x`; a sibling such as `/home/alice` is not under `/home/al`. */
function tildify(path: string, home: string): string {
  return path === home || path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

export type InteractiveOptions = {
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  env?: NodeJS.ProcessEnv;
  /** Replaces the model's setup (the demo points it at its own server). */
  setup?: AgentSetup;
};

/**
 * Runs the full-screen session until the person leaves; returns the exit code. The terminal is
 * given back (raw mode off, cursor shown) on every way out, a crash included.
 */
export async function runInteractive(config: Config, options: InteractiveOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const theme = createTheme(env);
  const problem = readinessProblem(config);
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
    exitOnCtrlC: false,
    patchConsole: true,
    maxFps: 30,
    // Rewrites only the lines that changed: while an answer streams, the status bar and the
    // prompt stay as they are instead of being redrawn with every frame.
    incrementalRendering: true,
  };
  if (problem && !options.setup) {
    const instance = render(
      <ThemeContext value={theme}>
        <FirstRunScreen problem={problem} configPath={config.configPath} />
      </ThemeContext>,
      renderOptions,
    );
    await instance.waitUntilExit();
    safeStdout?.detach();
    return 0;
  }
  // #5: the session (new, --continue, --resume ID; a bare --resume opens the picker in the app).
  const session = options.setup
    ? null
    : await WorkspaceSession.open({
        cwd: config.cwd,
        model: config.model ?? '',
        apiKey: config.apiKey,
        choice: sessionChoice(config),
        retentionDays: config.sessionRetentionDays,
        contextWindow: config.contextWindow,
        autoCompact: config.autoCompact,
        env,
      });
  let setup = options.setup;
  if (!setup) {
    const result = await setupAgent(config, session?.instructions.text ? {instructions: session.instructions.text} : {});
    if (!result.ok) {
      if (stdin.isTTY) stdin.setRawMode(false);
      process.stderr.write(`nib: ${result.error}\n`);
      return 1;
    }
    setup = result.value;
    if (session) {
      setup.history.push(...session.history);
      setup.compaction = session.compaction(setup.provider);
      if (config.approvalMode !== 'plan') session.warmUp();
    }
  }
  const redactSecrets = createRedactor(env, [{name: 'apiKey', value: config.apiKey}]);
  const history = createHistoryStore(historyPath(env), redactSecrets);
  const initialHistory = await history.load();
  const cwdLabel = tildify(setup.context.root, env['HOME'] || homedir());
  const stop = new AbortController();
  const instance = render(
    <ThemeContext value={theme}>
      <MarkdownLoader load={loadMarkdown}>
        <App
          config={config}
          setup={setup}
          history={history}
          initialHistory={initialHistory}
          cwdLabel={cwdLabel}
          session={session}
          openPicker={config.resume === true}
          stop={stop.signal}
          {...(config.prompt ? {initialPrompt: config.prompt} : {})}
        />
      </MarkdownLoader>
    </ThemeContext>,
    renderOptions,
  );
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
      void (session?.close() ?? Promise.resolve()).finally(() => process.exit(exitCodeFor(signal)));
    }, 5000).unref();
  });
  try {
    await instance.waitUntilExit();
    await session?.close();
    if (stoppedBy) return exitCodeFor(stoppedBy);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch {
    return stoppedBy ? exitCodeFor(stoppedBy) : 1;
  } finally {
    safeStdout?.detach();
    removeStopHandlers();
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
  }
}
