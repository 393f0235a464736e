import {mkdtemp, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, describe, expect, test} from 'vitest';
import {McpHub, type McpServerConfig, type McpServerEntry} from '../../../source/agent/mcp/index.js';
import {createToolRegistry, defaultTools} from '../../../source/tools/index.js';
import {createReadLedger, type ToolContext} from '../../../source/tools/index.js';
import {startMcpHttpServer, type McpHttpServer} from '../../support/mcp-http-server.js';
import {everythingEntry, faultEntry, marker, processesWith, rawEntry, silentEntry} from '../../support/mcp-servers.js';

// The hub against real servers: the reference "everything" server over stdio, a Streamable HTTP
// server built with the SDK, a fault server that misbehaves on purpose, and a raw one that
// breaks the spec.

const hubs: McpHub[] = [];
let http: McpHttpServer | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(hubs.splice(0).map(hub => hub.close()));
  await http?.close();
  http = undefined;
  await Promise.all(dirs.splice(0).map(dir => rm(dir, {recursive: true, force: true})));
});

function hubOf(entries: Record<string, McpServerEntry>, options: {connectTimeoutMs?: number; callTimeoutMs?: number; env?: NodeJS.ProcessEnv} = {}): McpHub {
  const servers: McpServerConfig[] = Object.entries(entries).map(([name, entry]) => ({name, source: 'user', file: 'config.json', entry}));
  const hub = new McpHub(servers, {
    root: process.cwd(),
    env: options.env ?? {},
    connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
    callTimeoutMs: options.callTimeoutMs ?? 15_000,
    version: 'test',
  });
  hubs.push(hub);
  hub.start(servers.map(s => s.name));
  return hub;
}

const ctx: ToolContext = {root: process.cwd(), ledger: createReadLedger()};

async function call(hub: McpHub, name: string, args: Record<string, unknown> = {}, signal = new AbortController().signal) {
  const tool = hub.tools().find(t => t.name === name);
  if (!tool) throw new Error(`no tool ${name}; have ${hub.tools().map(t => t.name).join(', ')}`);
  return tool.run(args, ctx, signal);
}

describe('McpHub', () => {
  test('server-everything over stdio: echo and get-sum, and close ends the process', async () => {
    const mark = marker();
    const hub = hubOf({everything: everythingEntry(mark)});
    const [status] = await hub.settle(15_000);
    expect(status).toMatchObject({name: 'everything', state: 'ready'});
    expect(status!.tools).toEqual(expect.arrayContaining(['mcp__everything__echo', 'mcp__everything__get-sum']));
    expect(await call(hub, 'mcp__everything__echo', {message: 'hello'})).toMatchObject({isError: false, content: 'Echo: hello'});
    expect((await call(hub, 'mcp__everything__get-sum', {a: 2, b: 40})).content).toContain('42');
    const echo = hub.tools().find(t => t.name === 'mcp__everything__echo')!;
    expect(echo.kind).toBe('exec');
    expect(echo.parameters).toMatchObject({type: 'object', properties: {message: {type: 'string'}}, required: ['message']});
    expect(echo.parameters).not.toHaveProperty('$schema');
    expect(await processesWith(mark)).toHaveLength(1);
    await hub.close();
    expect(await processesWith(mark)).toEqual([]);
  }, 30_000);

  test('Streamable HTTP with a ${VAR} header; a wrong token fails with the status', async () => {
    http = await startMcpHttpServer({token: 'tok-123'});
    const hub = hubOf(
      {
        issues: {type: 'http', url: http.url, headers: {Authorization: 'Bearer ${ISSUES_TOKEN}'}},
        wrong: {type: 'http', url: http.url, headers: {Authorization: 'Bearer nope'}},
      },
      {env: {ISSUES_TOKEN: 'tok-123'}},
    );
    const statuses = await hub.settle(15_000);
    expect(statuses[0]).toMatchObject({state: 'ready', tools: ['mcp__issues__list_issues', 'mcp__issues__get_issue']});
    expect(statuses[1]!.state).toBe('failed');
    expect(statuses[1]!.error).toBe('the server answered HTTP 401 (check the token in its "headers")');
    expect(statuses[1]!.error).not.toContain('nope');
    expect((await call(hub, 'mcp__issues__list_issues', {state: 'open'})).content).toBe('#1 Crash on empty config (open)');
    const issue = await call(hub, 'mcp__issues__get_issue', {number: 2});
    expect(JSON.parse(issue.content)).toEqual({number: 2, title: 'Support MCP', state: 'closed'});
    expect(await call(hub, 'mcp__issues__get_issue', {number: 9})).toMatchObject({isError: true, content: 'no issue #9'});
    expect(http.calls.map(c => c.tool)).toEqual(['list_issues', 'get_issue', 'get_issue']);
  }, 30_000);

  test('a command that does not exist fails with a sentence, not a stack', async () => {
    const hub = hubOf({ghost: {command: 'nib-no-such-mcp-server', args: []}});
    const [status] = await hub.settle(15_000);
    expect(status).toMatchObject({state: 'failed', error: 'cannot start "nib-no-such-mcp-server": no such command (is it installed and on PATH?)'});
    expect(hub.tools()).toEqual([]);
  });

  test('a server that never answers initialize fails after the connect timeout and is ended', async () => {
    const mark = marker();
    const hub = hubOf({mute: silentEntry(mark)}, {connectTimeoutMs: 300});
    const [status] = await hub.settle(15_000);
    expect(status).toMatchObject({state: 'failed', error: 'did not answer initialize within 0.3 s'});
    expect(await processesWith(mark)).toEqual([]);
  }, 20_000);

  test('settle gives up on a server still connecting, stops it and says why', async () => {
    const mark = marker();
    const hub = hubOf({mute: silentEntry(mark)});
    const [status] = await hub.settle(200);
    expect(status).toMatchObject({state: 'failed', error: 'not ready within 0.2 s (mcpStartupTimeoutMs)'});
    expect(await processesWith(mark)).toEqual([]);
  }, 20_000);

  test('a server that exits mid-call: a tool error for the model, failed in the status, restart brings it back', async () => {
    const hub = hubOf({fault: faultEntry(marker())});
    await hub.settle(15_000);
    const result = await call(hub, 'mcp__fault__crash');
    expect(result).toMatchObject({isError: true, code: 'mcp-crashed'});
    expect(result.content).toContain('crashing on purpose');
    expect(hub.statuses()[0]).toMatchObject({state: 'failed', error: 'the server exited: fault server: crashing on purpose', tools: []});
    expect(hub.tools()).toEqual([]);
    expect(await hub.restart('fault')).toMatchObject({state: 'ready'});
    expect(await call(hub, 'mcp__fault__fail')).toMatchObject({isError: true, code: 'mcp-error', content: 'the widget is broken'});
  }, 30_000);

  test('a hung call: Esc aborts it, and the server hears the cancellation', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nib-mcp-'));
    dirs.push(dir);
    const log = join(dir, 'fault.log');
    const hub = hubOf({fault: faultEntry(marker(), {MCP_FAULT_LOG: log})});
    await hub.settle(15_000);
    const controller = new AbortController();
    const running = call(hub, 'mcp__fault__hang', {}, controller.signal);
    await waitFor(async () => (await readFile(log, 'utf8').catch(() => '')).includes('hang started'));
    controller.abort();
    expect(await running).toMatchObject({isError: true, code: 'interrupted'});
    await waitFor(async () => (await readFile(log, 'utf8')).includes('hang cancelled'));
    expect(hub.statuses()[0]!.state).toBe('ready');
  }, 30_000);

  test('a call past the call timeout fails the server as hung', async () => {
    const hub = hubOf({fault: faultEntry(marker())}, {callTimeoutMs: 300});
    await hub.settle(15_000);
    expect(await call(hub, 'mcp__fault__hang')).toMatchObject({isError: true, code: 'mcp-timeout'});
    expect(hub.statuses()[0]).toMatchObject({state: 'failed', error: 'did not answer a call to hang within 0.3 s'});
  }, 30_000);

  test('a 5 MB result is bounded like bash output, the rest spilled to a file', async () => {
    const hub = hubOf({fault: faultEntry(marker())});
    await hub.settle(15_000);
    const result = await call(hub, 'mcp__fault__big');
    expect(result.isError).toBe(false);
    expect(result.content.length).toBeLessThan(40 * 1024);
    expect(result.content.startsWith('BEGIN\n')).toBe(true);
    expect(result.content.endsWith('END')).toBe(true);
    const spill = /the full output is in (\S+) …/.exec(result.content)?.[1];
    expect((await readFile(spill!, 'utf8')).length).toBe(5_000_009);
    await rm(spill!);
    expect(result.detail?.summary).toBe('4.8 MiB');
  }, 30_000);

  test('a 100 KB JSON-RPC error message is bounded like a result', async () => {
    const hub = hubOf({fault: faultEntry(marker())});
    await hub.settle(15_000);
    const result = await call(hub, 'mcp__fault__big-error');
    expect(result).toMatchObject({isError: true, code: 'mcp-error'});
    expect(result.content.length).toBeLessThan(40 * 1024);
    expect(result.content).toMatch(/^fault · big-error: MCP error -?\d+: BEGIN y/);
    expect(result.content).toMatch(/bytes of output dropped/);
    expect(result.content.endsWith('y END')).toBe(true);
    const spill = /the full output is in (\S+) …/.exec(result.content)?.[1];
    expect((await readFile(spill!, 'utf8')).length).toBeGreaterThan(100_000);
    await rm(spill!);
  }, 30_000);

  test('a $ref/$defs schema reaches the model whole, and the call works', async () => {
    const hub = hubOf({fault: faultEntry(marker())});
    await hub.settle(15_000);
    const registry = createToolRegistry([...defaultTools, ...hub.tools()]);
    const definition = registry.definitions({mode: 'ask'}).find(d => d.function.name === 'mcp__fault__refs')!;
    expect(definition.function.parameters).toEqual({
      type: 'object',
      properties: {point: {$ref: '#/$defs/point'}, label: {type: 'string'}},
      required: ['point'],
      $defs: {point: {type: 'object', properties: {x: {type: 'number'}, y: {type: 'number'}}, required: ['x', 'y']}},
    });
    const tool = registry.get('mcp__fault__refs')!;
    const parsed = registry.parseArgs(tool, '{"point": {"x": 1, "y": 2}, "label": "p"}');
    expect(parsed).toEqual({ok: true, value: {point: {x: 1, y: 2}, label: 'p'}});
    expect(registry.parseArgs(tool, '[1]')).toMatchObject({ok: false});
    expect((await tool.run((parsed as {value: Record<string, unknown>}).value, ctx, new AbortController().signal)).content).toBe('point 1,2 p');
    // Plan mode offers no MCP tool: a server's readOnlyHint is its claim, not a fact.
    expect(registry.definitions({mode: 'plan'}).some(d => d.function.name.startsWith('mcp__'))).toBe(false);
  }, 30_000);

  test('two servers whose tool names collide: the first keeps them, the second says which', async () => {
    const hub = hubOf({'fault.x': faultEntry(marker()), fault_x: faultEntry(marker())});
    const [first, second] = await hub.settle(15_000);
    expect(first!.tools).toContain('mcp__fault_x__fail');
    expect(second).toMatchObject({state: 'ready', tools: []});
    expect(second!.collisions).toContain('mcp__fault_x__fail (already offered by "fault.x")');
    expect(hub.tools().filter(t => t.name === 'mcp__fault_x__fail')).toHaveLength(1);
  }, 30_000);

  test('a tool whose definition breaks the spec is left out with a line saying why; the other tools stay usable', async () => {
    const hub = hubOf({raw: rawEntry(marker())});
    const [status] = await hub.settle(15_000);
    expect(status).toMatchObject({
      state: 'ready',
      tools: ['mcp__raw__echo', 'mcp__raw__bad-image'],
      invalid: ['tool "grid" left out: its inputSchema has type "array", but a tool\'s arguments are an object'],
    });
    expect(await call(hub, 'mcp__raw__echo', {message: 'hi'})).toMatchObject({isError: false, content: 'echo: hi'});
  }, 30_000);

  test('a tool list that is not a list fails the server with one line, not a dump of zod issues', async () => {
    const hub = hubOf({raw: rawEntry(marker(), 'tools-not-a-list')});
    const [status] = await hub.settle(15_000);
    expect(status).toMatchObject({state: 'failed', error: 'the server\'s answer is not valid MCP at "tools": Invalid input: expected array, received string'});
  }, 30_000);

  test('a result with an unreadable image keeps its text and says the image was unreadable', async () => {
    const hub = hubOf({raw: rawEntry(marker())});
    await hub.settle(15_000);
    expect(await call(hub, 'mcp__raw__bad-image')).toMatchObject({
      isError: false,
      content: 'the chart is below\n[image: image/png, unreadable: its data is not base64]',
    });
  }, 30_000);

  test('images, resources and structured content become one-line notes and JSON', async () => {
    const hub = hubOf({fault: faultEntry(marker())});
    await hub.settle(15_000);
    expect((await call(hub, 'mcp__fault__mixed')).content).toBe(
      ['here you are', '[image: image/png, 2.9 KiB]', '[resource file:///notes.txt: text/plain, 5 B]', '{\n  "temperature": 21,\n  "unit": "C"\n}'].join('\n'),
    );
  }, 30_000);
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise(resolve => setTimeout(resolve, 25));
  }
  throw new Error('condition not met');
}
