// The entry point. It imports only what argument parsing needs; everything else is loaded with
// import() when it is needed, so `nib --version` loads no provider and `nib -p` never loads React.
import module from 'node:module';
import {tmpdir} from 'node:os';
import {FLAG_HELP, nodeVersionProblem, parseFlags, type Flags} from './agent/config/flags.js';
import {redact, redactUrlCredentials} from './agent/config/redact.js';
import type {Config} from './agent/config/config.js';
import {resolveChunksDirectly} from './chunk-resolver.js';
import {drawEarlyPrompt} from './early-prompt.js';
import {LIMITS} from './core/limits.js';
import {commandCall} from './core/text.js';
import {VERSION} from './core/version.js';
import type {Result} from './core/result.js';
import {exitCodeFor, onStopSignals} from './core/stop-signals.js';

// V8 keeps the compiled bundle in Node's on-disk cache (in the temp dir), so later starts skip
// most parsing; the chunks loaded below with import() are the ones that benefit.
// Optional call: older Node (before 22.1) has no compile cache.
module.enableCompileCache?.();

// Bundled (the build defines NIB_VERSION): the chunks load without Node's checks on disk.
if (VERSION !== 'dev') resolveChunksDirectly(import.meta.url);

async function main(argv: readonly string[], secrets: string[]): Promise<number> {
  const tooOld = nodeVersionProblem(process.version, process.env);
  if (tooOld) return fail(tooOld);
  const flags = parseFlags(argv);
  if (!flags.ok) return fail(flags.error);
  if (flags.value.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (flags.value.help) {
    process.stdout.write(await helpText());
    return 0;
  }

  const {resolveConfig} = await import('./agent/config/config.js');
  const config = await resolveConfig({flags: flags.value, env: process.env, cwd: process.cwd()});
  if (!config.ok) return fail(config.error);
  if (config.value.apiKey) secrets.push(config.value.apiKey);
  // Command output files and sandbox /tmp dirs a killed nib left behind. Not awaited: it runs
  // beside the first request and is waited for only before exit.
  startupCleanup = import('./core/stale-temp.js').then(temp => temp.sweepStaleTemp(tmpdir()));

  if (config.value.demo) {
    if (!process.stdin.isTTY || !process.stdout.isTTY) return fail('--demo shows the interactive session: run it in a terminal');
    return (await import('./demo/index.js')).runDemo(config.value);
  }
  // Ink needs a terminal on both ends; anything piped gets print mode, which is what a script wants.
  const interactive = !config.value.print && process.stdin.isTTY === true && process.stdout.isTTY === true;
  if (interactive) return runInteractiveApp(config.value);
  // The app installs its own crash handler (it must restore the terminal first); print mode gets
  // this one, so an error thrown outside the main promise is still one line with no stack.
  const onCrash = (error: unknown) => crash(error, secrets);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  return runPrintMode(config.value, flags.value);
}

/**
 * The full-screen session. It must stay a single dynamic import so print mode never
 * loads React or Ink.
 */
async function runInteractiveApp(config: Config): Promise<number> {
  // Keys typed while the app loads must not echo, and Ctrl+C must stay a key (runInteractive says more).
  if (process.stdin.isTTY) process.stdin.setRawMode(true);
  // The prompt shows, and takes keys, before the app's code has even loaded. Not when something
  // else comes first: the session picker, a prompt given on the command line, or no model yet.
  const early =
    config.model && config.resume !== true && !config.prompt && process.env['TERM'] !== 'dumb'
      ? drawEarlyPrompt({stdin: process.stdin, stdout: process.stdout, hasColor: !process.env['NO_COLOR']})
      : undefined;
  try {
    const {runInteractive} = await import('./interactive.js');
    return await runInteractive(config, {early});
  } catch (error) {
    // Whatever went wrong is reported on a line of its own, not after the prompt's text.
    await early?.discard();
    throw error;
  }
}

/**
 * `nib -p "/review src/a.ts"`: a custom command's text, as the TUI would send it. A `/name` that
 * is no command is refused, as the TUI refuses it: a typo would otherwise go to the model as text
 * and the script would see success.
 */
async function customCommandText(prompt: string, name: string, root: string, builtIns: readonly string[]): Promise<Result<string, string>> {
  const [{loadCustomCommands, expandCustomPrompt}, {nibDir}] = await Promise.all([import('./agent/custom-commands.js'), import('./agent/config/xdg.js')]);
  const loaded = await loadCustomCommands({root, configDir: nibDir(process.env, 'XDG_CONFIG_HOME'), builtIns});
  for (const notice of loaded.notices) process.stderr.write(`nib: ${notice}\n`);
  const expanded = expandCustomPrompt(prompt, loaded.commands);
  if (expanded !== null) return {ok: true, value: expanded};
  return {ok: false, error: `unknown command /${name}: print mode runs custom commands (.nib/commands/NAME.md, ~/.config/nib/commands/NAME.md)${loaded.commands.length > 0 ? `, here ${loaded.commands.map(command => `/${command.name}`).join(', ')}` : ', and there are none here'}; nothing was sent`};
}

async function runPrintMode(config: Config, flags: Flags | undefined): Promise<number> {
  let prompt = config.prompt;
  if (prompt === undefined && !process.stdin.isTTY) {
    const read = await readStdin(LIMITS.stdinMaxBytes);
    if (!read.ok) return fail(read.error);
    prompt = read.value;
  }
  if (!prompt?.trim()) {
    return fail(
      flags?.print
        ? 'no prompt: pass it as an argument (nib -p "...") or on stdin (echo "..." | nib -p)'
        : 'no prompt on stdin; stdout is not a terminal, so nib runs in print mode (nib -p "...")',
    );
  }
  if (config.resume === true) return listForPrintMode(config);
  // The TUI's own commands (`nib -p /undo` would go to the model as text) are refused before the
  // session opens, and a custom command of such a name is not used, as in the TUI.
  const call = commandCall(prompt);
  const builtIns = call ? (await import('./commands/slash.js')).slashCommands.map(command => command.name) : [];
  if (call && builtIns.includes(call.name)) return fail(`/${call.name} is a command of the interactive session (run nib without -p); print mode sends prompts and custom commands only`);
  const [{openSession}, {runPrint, EXIT}] = await Promise.all([import('./agent/session/open.js'), import('./print/print.js')]);
  const session = await openSession(config, process.env, {canAsk: false, sendsAtOnce: true});
  if (!session.ok) return fail(session.error);

  // First Ctrl+C interrupts the turn (the loop answers every open tool call and returns);
  // a second one leaves at once. SIGTERM (`timeout`, CI) and SIGHUP (terminal closed) the same.
  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | null = null;
  const removeHandlers = onStopSignals(['SIGINT', 'SIGTERM', 'SIGHUP'], signal => {
    stoppedBy = signal;
    controller.abort();
  });
  try {
    for (const event of session.value.startEvents({replay: false})) if (event.type === 'notice') process.stderr.write(`nib: ${event.text}\n`);
    const {mcp} = session.value;
    if (mcp) await (await import('./agent/session/mcp.js')).startMcpForPrint(mcp, config.mcpStartupTimeoutMs, line => process.stderr.write(`nib: ${line}\n`), controller.signal);
    const sent = call ? await customCommandText(prompt, call.name, session.value.root, builtIns) : {ok: true as const, value: prompt};
    if (!sent.ok) return fail(sent.error);
    const code = await runPrint(config, session.value, sent.value, {stdout: process.stdout, stderr: process.stderr, signal: controller.signal});
    return stoppedBy && code === EXIT.interrupted ? exitCodeFor(stoppedBy) : code;
  } finally {
    removeHandlers();
    await session.value.close();
  }
}

/** `nib --resume -p` has no picker: list the sessions so a script can pass an id. */
async function listForPrintMode(config: Config): Promise<number> {
  const [{sessionsDir, dataDir}, {listSessions}, {formatSessionList}, {realpath}] = await Promise.all([
    import('./agent/session/log.js'),
    import('./agent/session/saved.js'),
    import('./agent/session/replay.js'),
    import('node:fs/promises'),
  ]);
  const root = await realpath(config.cwd).catch(() => config.cwd);
  const lines = formatSessionList(await listSessions(sessionsDir(dataDir(process.env), root)));
  process.stderr.write(
    lines.length > 0
      ? `nib: pick a session with --resume ID:\n${lines.map(line => `  ${line}`).join('\n')}\n`
      : 'nib: no sessions in this workspace yet\n',
  );
  return 1;
}

async function helpText(): Promise<string> {
  const {createBuiltinRegistry} = await import('./tools/builtin.js');
  const width = Math.max(...FLAG_HELP.map(([flag]) => flag.length)) + 2;
  const tools = createBuiltinRegistry().describe().map(tool => {
    const sentence = tool.description.split(/(?<=\.)\s/, 1)[0] ?? '';
    const summary = sentence.length > 72 ? `${sentence.slice(0, 71)}…` : sentence;
    return `  ${tool.name.padEnd(8)}${tool.kind.padEnd(7)}${summary}`;
  });
  return [
    `nib ${VERSION}: a coding agent in your terminal; every write and command waits for your key.`,
    '',
    'Usage:',
    '  nib [prompt]              interactive session (optionally starting with a prompt)',
    '  nib -p "prompt"           answer once and exit; the answer goes to stdout',
    '  echo "prompt" | nib -p    the prompt from stdin',
    '',
    'Options:',
    ...FLAG_HELP.map(([flag, text]) => `  ${flag.padEnd(width)}${text}`),
    '',
    'Tools (name, kind):',
    ...tools,
    '',
    'Environment: OPENAI_API_KEY (or the --provider preset\'s key variable), OPENAI_BASE_URL, NIB_MODEL, NIB_IDLE_TIMEOUT_MS',
    'Config file: $XDG_CONFIG_HOME/nib/config.json (default ~/.config/nib/config.json)',
    '',
  ].join('\n');
}

/**
 * The prompt from stdin, up to `maxBytes`: `nib -p < /dev/zero` or a runaway pipe would
 * otherwise be read until memory runs out. Past the cap nib stops reading and says so.
 */
async function readStdin(maxBytes: number): Promise<Result<string>> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of process.stdin) {
    size += (part as Buffer).length;
    if (size > maxBytes) {
      process.stdin.destroy();
      return {
        ok: false,
        error: `the prompt on stdin is over ${maxBytes / (1024 * 1024)} MiB; nib stopped reading it. Pass a shorter prompt, or put the material in a file and ask nib to read it`,
      };
    }
    parts.push(part as Buffer);
  }
  return {ok: true, value: Buffer.concat(parts).toString('utf8')};
}

function fail(message: string): number {
  // A base URL is quoted in many of these; its user name and password are not.
  process.stderr.write(`nib: ${redactUrlCredentials(message)}\n`);
  return 1;
}

function crash(error: unknown, secrets: readonly string[]): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`nib: unexpected error: ${redact(message.split('\n', 1)[0] ?? '', secrets)}\n`);
  process.exit(1);
}


let startupCleanup: Promise<unknown> = Promise.resolve();

const secrets = [process.env.OPENAI_API_KEY ?? ''];
main(process.argv.slice(2), secrets).then(
  async code => {
    await startupCleanup.catch(() => undefined);
    process.exit(code);
  },
  // The edge: whatever escaped is a bug, but the person gets one line, not a stack.
  (error: unknown) => crash(error, secrets),
);
