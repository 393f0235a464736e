import {chmod, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile, access} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {render} from 'ink-testing-library';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {parseFlags, resolveConfig} from '../source/agent/config/config.js';
import {listSessions} from '../source/agent/session/log.js';
import {setupAgent} from '../source/agent/session/setup.js';
import {WorkspaceSession, sessionChoice} from '../source/agent/session/workspace.js';
import {App} from '../source/app.js';
import {MarkdownContext} from '../source/components/Markdown.js';
import {renderMarkdown} from '../source/components/markdown-render.js';
import {createTheme, ThemeContext} from '../source/components/theme.js';
import {createHistoryStore} from '../source/agent/session/prompt-history.js';
import {keys, plain, typist, waitFor} from './components/helpers.js';
import {startOpenAiServer, type OpenAiServer, type Script} from './support/openai-server.js';
import {sse} from './support/sse.js';

let base: string;
let root: string;
let env: NodeJS.ProcessEnv;
let server: OpenAiServer | undefined;
let unmount: (() => Promise<void>) | undefined;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'nib-session-app-')));
  root = join(base, 'work');
  await mkdir(root);
  env = {XDG_CONFIG_HOME: join(base, 'config'), XDG_DATA_HOME: join(base, 'data'), HOME: base};
});
afterEach(async () => {
  await unmount?.();
  unmount = undefined;
  await server?.close();
  server = undefined;
  await rm(base, {recursive: true, force: true, maxRetries: 5});
});

const exists = (path: string) => access(path).then(() => true, () => false);

/** The app as runInteractive builds it, with a real WorkspaceSession, against the loopback server. */
async function start(script: Script, argv: string[] = []) {
  server = await startOpenAiServer(script, {validate: true});
  const flags = parseFlags(['--model', 'nib-test-model', '--base-url', server.url, '--cwd', root, '--approval-mode', 'yolo', ...argv]);
  if (!flags.ok) throw new Error(flags.error);
  const config = await resolveConfig({flags: flags.value, env, cwd: root});
  if (!config.ok) throw new Error(config.error);
  const session = await WorkspaceSession.open({
    cwd: root,
    model: 'nib-test-model',
    apiKey: undefined,
    choice: sessionChoice(config.value),
    retentionDays: 30,
    contextWindow: 128_000,
    autoCompact: 0.8,
    env,
  });
  const setup = await setupAgent(config.value);
  if (!setup.ok) throw new Error(setup.error);
  setup.value.history.push(...session.history);
  setup.value.compaction = session.compaction(setup.value.provider);
  const store = createHistoryStore(join(base, 'state', 'history'));
  const app = render(
    <ThemeContext value={createTheme({})}>
      <MarkdownContext value={renderMarkdown}>
      <App
        config={config.value}
        setup={setup.value}
        history={store}
        initialHistory={[]}
        cwdLabel="~/work"
        session={session}
        openPicker={config.value.resume === true}
      />
      </MarkdownContext>
    </ThemeContext>,
  );
  unmount = async () => {
    app.unmount();
    await session.close();
  };
  const type = typist(app.stdin);
  const screen = () => plain(app.lastFrame());
  const everything = () => plain(app.frames.join('\n'));
  return {...app, type, screen, everything, session, setup: setup.value};
}

test('/undo in the app: shows the diff, asks, and restores an edit, a new file and a bash rm', async () => {
  await writeFile(join(root, 'notes.md'), 'first line\nsecond line\n');
  await writeFile(join(root, 'tool.sh'), '#!/bin/sh\necho hi\n');
  await chmod(join(root, 'tool.sh'), 0o755);
  const app = await start([
    sse.toolCall('read', {path: 'notes.md'}),
    sse.toolCalls([
      {name: 'edit', arguments: {path: 'notes.md', old_string: 'second line', new_string: 'SECOND LINE'}},
      {name: 'write', arguments: {path: 'new.txt', content: 'brand new\n'}},
      {name: 'bash', arguments: {command: 'rm tool.sh'}},
    ]),
    sse.text('All three done.'),
  ]);
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  await app.type('change things', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('All three done.'));
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  expect(await exists(join(root, 'tool.sh'))).toBe(false);

  await app.type('/undo', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('Undo turn 1: 3 files change'));
  expect(app.screen()).toContain('+second line');
  expect(app.screen()).toContain('y restore · n keep');
  // The status bar does not offer the prompt's keys while the dialog has the keyboard.
  expect(app.screen()).not.toContain('enter send');
  await app.type('y');
  await waitFor(() => expect(app.everything()).toContain('Undid turn 1: 2 file(s) restored, 1 deleted.'));
  expect(await readFile(join(root, 'notes.md'), 'utf8')).toBe('first line\nsecond line\n');
  expect(await readFile(join(root, 'tool.sh'), 'utf8')).toBe('#!/bin/sh\necho hi\n');
  expect((await stat(join(root, 'tool.sh'))).mode & 0o111).toBe(0o111);
  expect(await exists(join(root, 'new.txt'))).toBe(false);
  // The model is told, through the system message, that its changes are gone.
  expect(app.setup.history[0]!.content).toMatch(/undid turn 1/);
});

test('--continue re-renders the transcript from the log and the next request carries the history', async () => {
  const first = await start([sse.text('The capital is Paris.')]);
  await waitFor(() => expect(first.screen()).toContain('enter send'));
  await first.type('capital of France?', keys.enter);
  await waitFor(() => expect(first.screen()).toContain('The capital is Paris.'));
  await waitFor(() => expect(first.screen()).toContain('enter send'));
  await unmount?.();
  await server?.close();

  const second = await start([sse.text('About 68 million.')], ['--continue']);
  await waitFor(() => expect(second.everything()).toContain('Resumed session'));
  expect(second.everything()).toContain('capital of France?');
  expect(second.everything()).toContain('The capital is Paris.');
  expect(second.screen()).toMatch(/\d+% ctx/); // estimated before the first usage arrives
  await second.type('and its population?', keys.enter);
  await waitFor(() => expect(second.screen()).toContain('About 68 million.'));
  await waitFor(() => expect(second.screen()).toContain('enter send')); // the turn's last snapshot is done
  const sent = server!.requests[0]!.body.messages.map(m => m.content);
  expect(sent.slice(1)).toEqual(['capital of France?', 'The capital is Paris.', 'and its population?']);
});

test('--resume opens the picker; enter resumes the chosen session', async () => {
  const first = await start([sse.text('one answer')]);
  await waitFor(() => expect(first.screen()).toContain('enter send'));
  await first.type('the first session', keys.enter);
  await waitFor(() => expect(first.screen()).toContain('one answer'));
  await waitFor(() => expect(first.screen()).toContain('enter send'));
  await unmount?.();
  await server?.close();

  const second = await start([sse.text('two')], ['--resume']);
  await waitFor(() => expect(second.screen()).toContain('Resume a session (1)'));
  expect(second.screen()).toContain('the first session');
  expect(second.screen()).toContain('esc new session');
  await second.type(keys.enter);
  await waitFor(() => expect(second.everything()).toContain('one answer'));
  await waitFor(() => expect(second.screen()).toContain('enter send'));
  await second.type('/sessions', keys.enter);
  await waitFor(() => expect(second.everything()).toContain('Sessions in this workspace'));
  // From inside a session, Esc goes back to it rather than to a new one.
  await second.type('/resume', keys.enter);
  await waitFor(() => expect(second.screen()).toContain('esc back to this session'));
  await second.type(keys.escape);
  await waitFor(() => expect(second.screen()).toContain('enter send'));
});

test('/clear goes on in a new session log; the old one stays whole', async () => {
  const app = await start([sse.text('first answer'), sse.text('second answer')]);
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  await app.type('before clear', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('first answer'));
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  const before = app.session.log.path;
  await app.type('/clear', keys.enter);
  await waitFor(() => expect(app.session.log.path).not.toBe(before));
  await app.type('after clear', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('second answer'));
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  expect(server!.requests[1]!.body.messages.map(m => m.content).slice(1)).toEqual(['after clear']);
  const sessions = await listSessions(app.session.dir);
  expect(sessions.map(s => s.firstPrompt).sort()).toEqual(['after clear', 'before clear']);
});

test('/compact summarises the older turns through the model; the next request carries the summary', async () => {
  const app = await start([
    sse.text('Answer one, with some detail about the first question.'),
    sse.text('Answer two, with some detail about the second question.'),
    sse.text('Answer three.'),
    sse.text('They asked two questions about the project and got detailed answers.'),
    sse.text('After compaction.'),
  ]);
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  for (const [prompt, answer] of [['first question', 'Answer one'], ['second question', 'Answer two'], ['third question', 'Answer three.']] as const) {
    await app.type(prompt, keys.enter);
    await waitFor(() => expect(app.screen()).toContain(answer));
    await waitFor(() => expect(app.screen()).toContain('enter send'));
  }
  await app.type('/compact', keys.enter);
  await waitFor(() => expect(app.everything()).toMatch(/Compacted: \d+ messages summarised/));
  const summaryRequest = server!.requests[3]!.body;
  expect(summaryRequest.messages[1]!.content).toContain('[user]\nfirst question');
  expect(summaryRequest.tools ?? []).toEqual([]);

  await app.type('go on', keys.enter);
  await waitFor(() => expect(app.screen()).toContain('After compaction.'));
  await waitFor(() => expect(app.screen()).toContain('enter send'));
  const next = server!.requests[4]!.body.messages.map(m => String(m.content));
  expect(next.some(content => content.includes('They asked two questions'))).toBe(true);
  expect(next.some(content => content === 'first question')).toBe(false);
  expect(next.at(-1)).toBe('go on');
});
