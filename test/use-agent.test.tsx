import {mkdtemp, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Text} from 'ink';
import {render} from 'ink-testing-library';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {parseFlags, resolveConfig} from '../source/agent/config/config.js';
import type {AgentEvent} from '../source/core/events.js';
import {setupAgent, type AgentSetup} from '../source/agent/session/setup.js';
import {useAgent, type Agent} from '../source/hooks/use-agent.js';
import type {TurnHooks} from '../source/hooks/use-workspace-session.js';
import {startOpenAiServer, type OpenAiServer} from './support/openai-server.js';
import {sse} from './support/sse.js';
import {waitFor} from './components/helpers.js';

let dir: string;
let server: OpenAiServer | undefined;
let unmount: (() => void) | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nib-use-agent-'));
});

afterEach(async () => {
  unmount?.();
  await server?.close();
  server = undefined;
  await rm(dir, {recursive: true, force: true});
});

function Probe({setup, hooks, onAgent}: {setup: AgentSetup; hooks: TurnHooks; onAgent: (agent: Agent) => void}) {
  const agent = useAgent({setup, model: 'nib-test-model', mode: 'ask', hooks});
  onAgent(agent);
  return <Text>{agent.state.busy ? 'busy' : 'idle'}</Text>;
}

test('an answer given while the session log is still being written (before approve() waits) is not lost', async () => {
  server = await startOpenAiServer([sse.toolCall('write', {path: 'new.txt', content: 'hello\n'}), sse.text('Wrote it.')]);
  const flags = parseFlags(['--model', 'nib-test-model', '--base-url', server.url, '--cwd', dir]);
  if (!flags.ok) throw new Error(flags.error);
  const config = await resolveConfig({flags: flags.value, env: {XDG_CONFIG_HOME: join(dir, '.config')}, cwd: dir});
  if (!config.ok) throw new Error(config.error);
  const setup = await setupAgent(config.value);
  if (!setup.ok) throw new Error(setup.error);

  let agent: Agent | undefined;
  const events: AgentEvent[] = [];
  const hooks: TurnHooks = {
    beforeTurn: async () => {},
    // The prompt is on screen while this runs; a person pressing `y` now answers before the
    // loop has asked.
    onEvent: async event => {
      events.push(event);
      if (event.type === 'approval-request') agent!.decide(event.request.id, {kind: 'yes'});
    },
    afterTurn: async () => {},
  };
  const app = render(<Probe setup={setup.value} hooks={hooks} onAgent={current => (agent = current)} />);
  unmount = app.unmount;
  agent!.submit('write it');
  await waitFor(() => expect(events.some(event => event.type === 'turn-end')).toBe(true));
  expect(events.find(event => event.type === 'approval-decision')).toMatchObject({decision: {kind: 'yes'}});
  expect(await readFile(join(dir, 'new.txt'), 'utf8')).toBe('hello\n');
});

test('/clear takes back "always" answers and what the model had read', async () => {
  const flags = parseFlags(['--model', 'nib-test-model', '--base-url', 'http://127.0.0.1:9/v1', '--cwd', dir]);
  if (!flags.ok) throw new Error(flags.error);
  const config = await resolveConfig({flags: flags.value, env: {XDG_CONFIG_HOME: join(dir, '.config')}, cwd: dir});
  if (!config.ok) throw new Error(config.error);
  const setup = await setupAgent(config.value);
  if (!setup.ok) throw new Error(setup.error);
  setup.value.alwaysAllowed.add('bash');
  setup.value.context.session.reads.set(join(dir, 'a.txt'), {size: 1, mtimeMs: 1, hash: 'x'});

  let agent: Agent | undefined;
  const hooks: TurnHooks = {beforeTurn: async () => {}, onEvent: async () => {}, afterTurn: async () => {}};
  const app = render(<Probe setup={setup.value} hooks={hooks} onAgent={next => (agent = next)} />);
  unmount = app.unmount;
  await waitFor(() => expect(agent).toBeDefined());
  agent!.clear();
  expect(setup.value.alwaysAllowed.size).toBe(0);
  expect(setup.value.context.session.reads.size).toBe(0);
});
