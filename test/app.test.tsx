import {readFileSync} from 'node:fs';
import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {render} from 'ink-testing-library';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {renderApp} from './support/render-app.js';
import type {AgentSession} from '../source/agent/session/agent-session.js';
import type {LoadCommands} from '../source/hooks/use-commands.js';
import {withCustomCommands} from '../source/commands/custom.js';
import {slashCommands} from '../source/commands/slash.js';
import {resolveConfig} from '../source/agent/config/config.js';
import {parseFlags} from '../source/agent/config/flags.js';
import {openSession} from '../source/agent/session/open.js';
import {createSandbox, openTestSession} from './support/session.js';
import {startOpenAiServer, type OpenAiServer, type Script} from './support/openai-server.js';
import {sse} from './support/sse.js';
import {keys, plain, typist} from './components/helpers.js';
import {waitFor} from './support/wait-for.js';
import {createDemoProject} from '../source/demo/index.js';
import {demoPrompt} from '../source/demo/project.js';
import {startDemoServer} from '../source/demo/server.js';
import type {TypedAhead} from '../source/early-prompt.js';

let dir: string;
let server: OpenAiServer | undefined;
let unmount: (() => void) | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nib-app-'));
});

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  unmount?.();
  unmount = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await server?.close();
  server = undefined;
  await rm(dir, {recursive: true, force: true});
});

/** How the app reads its commands again (useCommands), given the session and the sandbox's environment. */
type Loader = (session: AgentSession, env: NodeJS.ProcessEnv) => LoadCommands;
const fromFolders: Loader = (session, env) => () => withCustomCommands(slashCommands, session.root, env);

async function start(script: Script, options: {prompt?: string; history?: string[]; baseURL?: string; cwd?: string; typedAhead?: TypedAhead; loadCommands?: Loader} = {}) {
  server = await startOpenAiServer(script);
  const sandbox = await createSandbox('nib-app-');
  cleanups.push(sandbox.cleanup);
  const {session} = await openTestSession({...sandbox, workspace: options.cwd ?? dir}, ['--base-url', options.baseURL ?? server.url]);
  const historyFile = join(dir, '.state', 'history');
  const app = await renderApp(session, {historyFile, ...(options.history ? {history: options.history} : {}), ...(options.prompt ? {prompt: options.prompt} : {}), ...(options.typedAhead ? {typedAhead: options.typedAhead} : {}), ...(options.loadCommands ? {loadCommands: options.loadCommands(session, sandbox.env)} : {})});
  unmount = () => {
    app.unmount();
    void session.close();
  };
  // The prompt's key listener attaches after the first frame.
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  return {...app, session, historyFile};
}

test('a prompt streams an answer into the transcript; the status bar counts tokens', async () => {
  const app = await start([sse.text('# Hello\n\nThis is **nib**.\n\n- one\n- two', {usage: {prompt_tokens: 1200, completion_tokens: 30, total_tokens: 1230}})]);
  await app.type('hi there', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('* two'));
  // The prompt comes back once the session is free (its log flushed), a moment after the answer ends.
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  const screen = app.screen();
  expect(screen).toContain('› hi there');
  expect(screen).toContain('This is nib.');
  expect(screen).toContain('↑1.2k ↓30');
  expect(screen).toContain('enter send');
  expect(server!.requests[0]!.body.messages.at(-1)).toEqual({role: 'user', content: 'hi there'});
});

test('keys typed before the app loaded: a draft stays in the prompt, to finish and send', async () => {
  const app = await start([sse.text('Got it.')], {typedAhead: {text: 'half typ', sent: false}});
  expect(app.screen()).toContain('› half typ');
  await app.type('ed', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('Got it.'));
  expect(server!.requests[0]!.body.messages.at(-1)).toEqual({role: 'user', content: 'half typed'});
});

test('keys typed before the app loaded: Enter sent the prompt, as it would from the app (slash commands too)', async () => {
  const app = await start([sse.text('Answered.')], {typedAhead: {text: 'early question', sent: true}});
  await waitFor(() => expect(app.screen()).toContain('Answered.'));
  expect(server!.requests[0]!.body.messages.at(-1)).toEqual({role: 'user', content: 'early question'});
  // The prompt history has it, as it has anything sent with Enter.
  await waitFor(() => expect(readFileSync(app.historyFile, 'utf8')).toContain('early question'));
});

test('keys typed before the app loaded: a slash command sent with Enter runs as a command', async () => {
  const app = await start([], {typedAhead: {text: '/help', sent: true}});
  await waitFor(() => expect(app.screen()).toMatch(/\/compact/));
  expect(server!.requests).toHaveLength(0);
});

test('read, then an edit approved with y: the file is written and the badges say so', async () => {
  await writeFile(join(dir, 'a.txt'), 'hello world\n');
  const app = await start(
    [
      sse.toolCall('read', {path: 'a.txt'}),
      sse.toolCall('edit', {path: 'a.txt', old_string: 'world', new_string: 'nib'}),
      sse.text('Changed it.'),
    ],
    {prompt: 'greet nib'},
  );
  await waitFor(() => expect(app.screen()).toContain('y yes'));
  expect(app.screen()).toContain('✓ read a.txt');
  expect(app.screen()).toContain('+1 −1');
  await app.type('y');
  await waitFor(() => expect(app.screen()).toContain('Changed it.'));
  expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('hello nib\n');
  expect(app.screen()).toMatch(/✓ edit a\.txt · \+1 −1/);
});

test('n with a reason: the file stays, the model hears why', async () => {
  await writeFile(join(dir, 'a.txt'), 'hello world\n');
  const app = await start(
    [
      sse.toolCall('read', {path: 'a.txt'}),
      sse.toolCall('edit', {path: 'a.txt', old_string: 'world', new_string: 'nib'}),
      sse.text('OK, leaving it.'),
    ],
    {prompt: 'greet nib'},
  );
  await waitFor(() => expect(app.screen()).toContain('y yes'));
  await app.type('n');
  await app.type('keep it');
  await app.type(keys.enter);
  await waitFor(() => expect(app.screen()).toContain('OK, leaving it.'));
  expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('hello world\n');
  expect(app.screen()).toContain('⊘ edit a.txt · denied: keep it');
  expect(JSON.stringify(server!.requests[2]!.body.messages.at(-1))).toContain('keep it');
});

test('Esc interrupts a streaming answer at once; the partial stays and the next prompt works', async () => {
  const long = 'word '.repeat(4000);
  const app = await start([sse.slow(sse.text(long, {chunkSize: 5}), 5), sse.text('Second answer.')]);
  await app.type('talk a lot', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('esc interrupt'));
  await waitFor(() => expect(app.screen()).toContain('word word'));
  await app.type(keys.escape);
  await waitFor(() => expect(app.screen()).toContain('interrupted'));
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  await app.type('again', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('Second answer.'));
  // The interrupted partial answer went back to the model as history, so the request was valid.
  const messages = server!.requests[1]!.body.messages;
  expect(messages.at(-2)).toMatchObject({role: 'assistant'});
  expect(messages.at(-1)).toEqual({role: 'user', content: 'again'});
});

test('a prompt typed while busy is queued and sent after the turn', async () => {
  const app = await start([sse.slow(sse.text('first answer here', {chunkSize: 2}), 30), sse.text('Second.')]);
  await app.type('one', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('esc interrupt'));
  await app.type('two', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('queued: two'));
  await waitFor(() => expect(app.screen()).toContain('Second.'));
  expect(server!.requests[1]!.body.messages.at(-1)).toEqual({role: 'user', content: 'two'});
  expect(app.screen()).not.toContain('queued: two');
});

// Ink stops reading stdin when the app unmounts: the observable sign that nib exited.
const hasExited = (app: {stdin: NodeJS.EventEmitter}) => app.stdin.listenerCount('readable') === 0;

test('Ctrl+C clears the input; a second Ctrl+C within 2 s exits', async () => {
  const app = await start([]);
  await app.type('draft');
  await waitFor(() => expect(app.screen()).toContain('› draft'));
  await app.type(keys.ctrlC);
  await waitFor(() => expect(app.screen()).toContain('press ctrl+c again to exit'));
  expect(app.screen()).not.toContain('draft');
  expect(hasExited(app)).toBe(false);
  await app.type(keys.ctrlC);
  await waitFor(() => expect(hasExited(app)).toBe(true));
});

test('two Ctrl+C in one read (pressed ~5 ms apart) exit', async () => {
  const app = await start([]);
  await app.type(keys.ctrlC + keys.ctrlC);
  await waitFor(() => expect(hasExited(app)).toBe(true));
});

test('Ctrl+C while busy interrupts the turn instead of exiting', async () => {
  const app = await start([sse.slow(sse.text('word '.repeat(2000), {chunkSize: 5}), 5)]);
  await app.type('go', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('word word'));
  await app.type(keys.ctrlC);
  await waitFor(() => expect(app.screen()).toContain('interrupted'));
  expect(hasExited(app)).toBe(false);
});

test('a draft typed during a turn: Ctrl+C interrupts and keeps it, and the exit hint shows only once the input is empty', async () => {
  const app = await start([sse.slow(sse.text('word '.repeat(2000), {chunkSize: 5}), 5)]);
  await app.type('go', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('word word'));
  await app.type('queued draft');
  await app.type(keys.ctrlC);
  await waitFor(() => expect(app.screen()).toContain('interrupted'));
  expect(app.screen()).toContain('› queued draft');
  expect(app.screen()).not.toContain('press ctrl+c again to exit');
  await app.type(keys.ctrlC);
  await waitFor(() => expect(app.screen()).toContain('press ctrl+c again to exit'));
  expect(app.screen()).not.toContain('queued draft');
  expect(hasExited(app)).toBe(false);
});

test('Ctrl+D exits on an empty input only', async () => {
  const app = await start([]);
  await app.type('x', keys.ctrlD);
  await waitFor(() => expect(app.screen()).toContain('› x'));
  expect(hasExited(app)).toBe(false);
  await app.type(keys.backspace);
  await waitFor(() => expect(app.screen()).not.toContain('› x'));
  await app.type(keys.ctrlD);
  await waitFor(() => expect(hasExited(app)).toBe(true));
});

test('slash commands: /help, /mode, /usage, unknown ones', async () => {
  const app = await start([]);
  await app.type('/help', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('/model [NAME]  switch the model'));
  await app.type('/mode yolo', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('mode set to yolo'));
  expect(app.screen()).toMatch(/nib-test-model · yolo/);
  await app.type('/usage', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('tokens: 0 in, 0 out'));
  await app.type('/nope', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('unknown command /nope'));
  expect(server!.requests).toHaveLength(0);
});

test('a prompt given on the command line runs as if typed: a slash command runs, and history keeps it', async () => {
  const help = await start([], {prompt: '/help'});
  await waitFor(() => expect(help.screen()).toContain('/model [NAME]  switch the model'));
  expect(server!.requests).toHaveLength(0);
  unmount?.();
  await server?.close();
  const app = await start([sse.text('answered')], {prompt: 'hello from the command line'});
  await waitFor(() => expect(app.screen()).toContain('answered'));
  expect(server!.requests[0]!.body.messages.at(-1)).toMatchObject({role: 'user', content: 'hello from the command line'});
  const saved = () => readFileSync(app.historyFile, 'utf8').trim().split('\n').map(line => JSON.parse(line));
  // The same history file for both: each prompt as typed, the command too.
  await waitFor(() => expect(saved()).toEqual(['/help', 'hello from the command line']));
});

test('a prompt given on the command line waits in the input while the model picker asks first', async () => {
  server = await startOpenAiServer([sse.text('from the chosen model')], {persona: {kind: 'ollama', window: 8192, models: ['llama3.2:3b', 'qwen3:8b']}});
  const sandbox = await createSandbox('nib-app-');
  cleanups.push(sandbox.cleanup);
  const flags = parseFlags(['--cwd', dir, '--base-url', server.url]);
  if (!flags.ok) throw new Error(flags.error);
  const config = await resolveConfig({flags: flags.value, env: sandbox.env, cwd: dir});
  if (!config.ok) throw new Error(config.error);
  const opened = await openSession(config.value, sandbox.env, {canAsk: true});
  if (!opened.ok) throw new Error(opened.error);
  const session = opened.value;
  const app = await renderApp(session, {historyFile: join(dir, '.state', 'history'), prompt: 'fix the failing test please'});
  unmount = () => {
    app.unmount();
    void session.close();
  };
  await waitFor(() => expect(app.screen()).toContain('qwen3:8b'));
  // The picker takes a key only after a pause (keys typed for something else are not a choice).
  await new Promise(resolve => setTimeout(resolve, 400));
  await app.type(keys.down);
  await new Promise(resolve => setTimeout(resolve, 400));
  await app.type(keys.enter);
  await waitFor(() => expect(app.screen()).toContain('› fix the failing test please'), app.screen);
  expect(server.requests.filter(request => request.path.endsWith('/chat/completions'))).toHaveLength(0);
  await app.type(keys.enter);
  await waitFor(() => expect(app.screen()).toContain('from the chosen model'));
  const chat = server.requests.find(request => request.path.endsWith('/chat/completions'))!;
  expect(chat.body).toMatchObject({model: 'qwen3:8b'});
  expect(chat.body.messages.at(-1)).toMatchObject({role: 'user', content: 'fix the failing test please'});
});

test('a custom command file added, edited or removed during the session counts at once', async () => {
  const app = await start([sse.text('one'), sse.text('two')], {loadCommands: fromFolders});
  const commands = join(dir, '.nib', 'commands');
  await mkdir(commands, {recursive: true});
  await writeFile(join(commands, 'greet.md'), '---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS.\n');
  // The menu reads the folder again when it opens.
  await app.type('/');
  await app.type('gre');
  await waitFor(() => expect(app.screen()).toContain('Say hello (project)'));
  await app.type('et Bob', keys.enter);
  await waitFor(() => expect(server!.requests).toHaveLength(1));
  expect(server!.requests[0]!.body.messages.at(-1)).toMatchObject({role: 'user', content: 'Say hello to Bob.'});
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  await writeFile(join(commands, 'greet.md'), 'Wave at $ARGUMENTS.\n');
  await app.type('/greet Ada', keys.enter);
  await waitFor(() => expect(server!.requests).toHaveLength(2));
  expect(server!.requests[1]!.body.messages.at(-1)).toMatchObject({role: 'user', content: 'Wave at Ada.'});
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  await rm(join(commands, 'greet.md'));
  await app.type('/greet Ada', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('unknown command /greet'));
  expect(server!.requests).toHaveLength(2);
});

test('a prompt typed right after a slash command does not overtake it while the command folders are read', async () => {
  // Reading the folders takes a moment (a slow disk, a network home).
  const slow: Loader = (session, env) => async () => {
    await new Promise(resolve => setTimeout(resolve, 150));
    return fromFolders(session, env)();
  };
  const app = await start([sse.text('answered')], {loadCommands: slow});
  await app.type('/model other-model', keys.enter);
  await app.type('hello', keys.enter);
  await waitFor(() => expect(server!.requests).toHaveLength(1));
  expect(server!.requests[0]!.body.model).toBe('other-model');
});

test('command folders that never answer hold nothing: the commands as they were are used after a second', async () => {
  const app = await start([sse.text('answered')], {loadCommands: () => () => new Promise(() => {})});
  await app.type('/mode yolo', keys.enter);
  await app.type('hello', keys.enter);
  await waitFor(() => expect(server!.requests).toHaveLength(1), undefined, 5000);
  expect(app.screen()).toContain('mode set to yolo');
});

test('while the / list is open, the hints say what Enter does there', async () => {
  const app = await start([]);
  await app.type('/he');
  await waitFor(() => expect(app.screen()).toContain('↑/↓ choose · enter pick · tab complete'));
  await app.type(' x');
  await waitFor(() => expect(app.screen()).toContain('enter send'));
});

test('Esc closes the / list for the command being typed and keeps the text, which Enter then sends as typed', async () => {
  const app = await start([]);
  await app.type('/he');
  await waitFor(() => expect(app.screen()).toContain('esc close'));
  expect(app.screen()).toContain('/help');
  await app.type(keys.escape);
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  expect(app.screen()).not.toContain('/help');
  expect(app.screen()).toContain('› /he');
  // Closed for the command being typed, as the @ list is for its mention.
  await app.type('l');
  await waitFor(() => expect(app.screen()).toContain('› /hel'));
  expect(app.screen()).not.toContain('/help');
  await app.type(keys.enter);
  await waitFor(() => expect(app.screen()).toContain('unknown command /hel'));
  // The next command opens it again.
  await app.type('/hel');
  await waitFor(() => expect(app.screen()).toContain('esc close'));
  await app.type(keys.escape);
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  await app.type(keys.backspace, keys.backspace, keys.backspace, keys.backspace);
  await app.type('/');
  await waitFor(() => expect(app.screen()).toContain('esc close'));
});

test('while a turn runs, Esc closes the @ list rather than interrupting; the list has its own hints', async () => {
  await writeFile(join(dir, 'notes.txt'), 'x\n');
  const app = await start([sse.slow(sse.text('word '.repeat(2000), {chunkSize: 5}), 5), sse.text('Second.')]);
  await app.type('talk a lot', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('esc interrupt'));
  await app.type('see @not');
  await waitFor(() => expect(app.screen()).toContain('enter or tab complete · esc close'));
  await app.type(keys.escape);
  await waitFor(() => expect(app.screen()).toContain('esc interrupt'));
  expect(app.screen()).toContain('› see @not');
  await app.type(keys.escape);
  await waitFor(() => expect(app.screen()).toContain('interrupted'));
});

test('a ! alone goes nowhere: it says how a !command is typed, and the next prompt is the first request', async () => {
  const app = await start([sse.text('answered')]);
  await app.type('!', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('! runs the shell command typed after it'));
  await app.type('hi', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('answered'));
  expect(server!.requests).toHaveLength(1);
  expect(server!.requests[0]!.body.messages.at(-1)).toEqual({role: 'user', content: 'hi'});
});

test('a command sent after an answer sees the session as it is now', async () => {
  // The prompt line's submit keeps its identity across renders (the line is memoized); it must
  // still read the latest state, not the state of the render that created it.
  const app = await start([sse.text('hello there')]);
  await app.type('hi', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('hello there'));
  await app.type('/usage', keys.enter);
  await waitFor(() => expect(app.screen()).toMatch(/tokens: [1-9]\d* in, [1-9]\d* out/));
});

test('Shift+Tab cycles the approval mode', async () => {
  const app = await start([]);
  await app.type(keys.shiftTab);
  await waitFor(() => expect(app.screen()).toMatch(/nib-test-model · auto-edit/));
  await app.type(keys.shiftTab);
  await waitFor(() => expect(app.screen()).toMatch(/nib-test-model · yolo/));
});

test('prompt history persists in the state file and Up recalls it', async () => {
  const app = await start([sse.text('ok')], {history: ['an old prompt']});
  await app.type(keys.up);
  await waitFor(() => expect(app.screen()).toContain('› an old prompt'));
  await app.type(keys.down, 'new one', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('ok'));
  // The file is appended in the background; the prompt never waits for the disk.
  const saved = () => readFileSync(app.historyFile, 'utf8').trim().split('\n').map(line => JSON.parse(line));
  await waitFor(() => expect(saved()).toEqual(['an old prompt', 'new one']));
});

test('the demo: a streamed answer, a read, an edit and a command, approved with y, fix the sample project', async () => {
  const demo = await startDemoServer({chunkDelayMs: 0});
  const project = await createDemoProject(dir);
  try {
    const app = await start([], {prompt: demoPrompt, baseURL: demo.url, cwd: project});
    await waitFor(() => expect(app.screen()).toContain('Allow edit? y yes'));
    expect(app.screen()).toContain('✓ read src/greet.js');
    expect(app.screen()).toContain("-   return 'Hello, ' + name;");
    await app.type('y');
    await waitFor(() => expect(app.screen()).toContain('Allow bash? y yes'));
    await app.type('y');
    await waitFor(() => expect(app.screen()).toContain('That was the whole demo.'));
    expect(app.screen()).toContain('✓ bash node test.js · exit 0');
    expect(await readFile(join(project, 'src/greet.js'), 'utf8')).toContain('return `Hello, ${name}!`;');
  } finally {
    await demo.close();
  }
});

test('the demo follows a denial', async () => {
  const demo = await startDemoServer({chunkDelayMs: 0});
  const project = await createDemoProject(dir);
  try {
    const app = await start([], {prompt: demoPrompt, baseURL: demo.url, cwd: project});
    await waitFor(() => expect(app.screen()).toContain('Allow edit? y yes'));
    await app.type(keys.escape);
    await waitFor(() => expect(app.screen()).toContain('I left `src/greet.js` as it was'.replace(/`/g, '')));
  } finally {
    await demo.close();
  }
});

test('Ctrl+G edits the prompt in $VISUAL and puts what was saved back in the input', async () => {
  const editor = join(dir, 'editor.sh');
  // Appends, so the draft typed before Ctrl+G must reach the editor.
  await writeFile(editor, '#!/bin/sh\nprintf " edited in the editor\\n" >> "$1"\n', {mode: 0o755});
  const saved = process.env['VISUAL'];
  process.env['VISUAL'] = editor;
  try {
    const app = await start([]);
    await app.type('draft');
    await waitFor(() => expect(app.screen()).toContain('› draft'));
    await app.type('\u0007');
    await waitFor(() => expect(app.screen()).toContain('› draft edited in the editor'));
  } finally {
    if (saved === undefined) delete process.env['VISUAL'];
    else process.env['VISUAL'] = saved;
  }
});

test('escape sequences in an answer reach the terminal as text, not as commands', async () => {
  const app = await start([sse.text('Title \u001B]0;pwned\u0007 and \u001B[2J clear.')]);
  await app.type('hi', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('clear.'));
  const frames = app.frames.join('');
  expect(frames).not.toContain('\u001B]0;');
  expect(frames).not.toContain('\u0007');
  expect(frames).not.toContain('\u001B[2J');
  expect(app.screen()).toContain(']0;pwned');
});
