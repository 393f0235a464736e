import {mkdir, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {approveServers, loadMcpConfig} from '../../source/agent/mcp/index.js';
import {startMcpHttpServer, type McpHttpServer} from '../support/mcp-http-server.js';
import {everythingEntry, faultEntry, marker, processesWith, rawEntry, silentEntry} from '../support/mcp-servers.js';
import {createSandbox, filesContaining, runNib, startNib, TEST_API_KEY, type Sandbox} from '../support/nib-process.js';
import {sse, startOpenAiServer, type OpenAiServer} from '../support/openai-server.js';

// MCP through `nib -p`: real servers, the loopback model scripting the calls, and no server
// process left once nib has exited.

let sandbox: Sandbox;
let model: OpenAiServer | undefined;
let http: McpHttpServer | undefined;

beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(async () => {
  await model?.close();
  await http?.close();
  model = undefined;
  http = undefined;
  expect(await filesContaining(sandbox.root, TEST_API_KEY)).toEqual([]);
  await sandbox.cleanup();
});

async function userConfig(config: Record<string, unknown>): Promise<void> {
  const dir = join(sandbox.home, '.config', 'nib');
  await mkdir(dir, {recursive: true});
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
}

function toolMessages(): string[] {
  return model!.requests.at(-1)!.body.messages.filter(m => m.role === 'tool').map(m => String(m.content));
}

const nibArgs = (mode: string) => ['-p', 'go', '--base-url', model!.url, '--model', 'm', '--approval-mode', mode];

describe('MCP in print mode', () => {
  test('permission rules name MCP tools: mcp__server__tool denies one in yolo, mcp__server allows the rest in ask', async () => {
    const mark = marker();
    await userConfig({
      mcpServers: {everything: everythingEntry(mark)},
      permissions: {deny: ['mcp__everything__get-sum'], allow: ['mcp__everything']},
    });
    model = await startOpenAiServer([
      sse.toolCalls([
        {name: 'mcp__everything__echo', arguments: {message: 'allowed'}},
        {name: 'mcp__everything__get-sum', arguments: {a: 1, b: 2}},
      ]),
      sse.text('Done.'),
    ]);
    const result = await runNib(sandbox, nibArgs('ask'));
    expect(result.code).toBe(0);
    expect(toolMessages()[0]).toBe('Echo: allowed');
    expect(toolMessages()[1]).toMatch(/deny mcp__everything__get-sum \(user settings\) forbids it/);
    expect(await processesWith(mark)).toEqual([]);
  });

  test('a server named with "__" is refused, so mcp__every covers only the server "every"', async () => {
    const mark = marker();
    await userConfig({
      mcpServers: {every: everythingEntry(mark), every__thing: everythingEntry(mark)},
      permissions: {allow: ['mcp__every']},
    });
    model = await startOpenAiServer([sse.toolCall('mcp__every__echo', {message: 'one server'}), sse.text('Done.')]);
    const result = await runNib(sandbox, nibArgs('ask'));
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/nib: MCP server "every__thing" in \S+config\.json is ignored: its name contains "__", .*rename it, e\.g\. to "every_thing"/);
    expect(model.requests[0]!.body.tools!.map(t => t.function.name).filter(name => name.startsWith('mcp__every__thing'))).toEqual([]);
    expect(toolMessages()).toEqual(['Echo: one server']);
    expect(await processesWith(mark)).toEqual([]);
  });

  test('server-everything: echo and get-sum through a full model round, then no process remains', async () => {
    const mark = marker();
    await userConfig({mcpServers: {everything: everythingEntry(mark)}});
    model = await startOpenAiServer([
      sse.toolCalls([
        {name: 'mcp__everything__echo', arguments: {message: 'hello from nib'}},
        {name: 'mcp__everything__get-sum', arguments: {a: 19, b: 23}},
      ]),
      sse.text('The sum is 42.'),
    ]);
    const result = await runNib(sandbox, nibArgs('yolo'));
    expect(result).toMatchObject({code: 0, stdout: 'The sum is 42.'});
    expect(result.stderr).toContain('→ mcp__everything__echo {"message":"hello from nib"}');
    expect(toolMessages()).toEqual(['Echo: hello from nib', expect.stringContaining('42')]);
    const offered = model.requests[0]!.body.tools!.map(t => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(['read', 'bash', 'mcp__everything__echo', 'mcp__everything__get-sum']));
    const echo = model.requests[0]!.body.tools!.find(t => t.function.name === 'mcp__everything__echo')!;
    expect(echo.function.parameters).toMatchObject({type: 'object', required: ['message']});
    expect(await processesWith(mark)).toEqual([]);
  }, 60_000);

  test('ask mode: nobody can approve, so the call is refused and the model told; plan mode offers no MCP tool', async () => {
    const mark = marker();
    await userConfig({mcpServers: {everything: everythingEntry(mark)}});
    model = await startOpenAiServer([sse.toolCall('mcp__everything__echo', {message: 'x'}), sse.text('ok')]);
    const result = await runNib(sandbox, nibArgs('ask'));
    expect(result.code).toBe(0);
    expect(toolMessages()[0]).toMatch(/mcp__everything__echo was not run: non-interactive runs in approval mode "ask" refuse exec tools/);
    await model.close();
    model = await startOpenAiServer([sse.text('planned')]);
    expect((await runNib(sandbox, nibArgs('plan'))).code).toBe(0);
    expect(model.requests[0]!.body.tools!.map(t => t.function.name).filter(n => n.startsWith('mcp__'))).toEqual([]);
    expect(await processesWith(mark)).toEqual([]);
  }, 60_000);

  test('a Streamable HTTP server from --mcp-config, its token from the environment', async () => {
    http = await startMcpHttpServer({token: 'tok-xyz'});
    await writeFile(
      join(sandbox.workspace, 'servers.json'),
      JSON.stringify({mcpServers: {issues: {type: 'http', url: http.url, headers: {Authorization: 'Bearer ${ISSUES_TOKEN}'}}}}),
    );
    model = await startOpenAiServer([sse.toolCall('mcp__issues__get_issue', {number: 1}), sse.text('Issue 1 is open.')]);
    const result = await runNib(sandbox, [...nibArgs('yolo'), '--mcp-config', 'servers.json'], {env: {ISSUES_TOKEN: 'tok-xyz'}});
    expect(result).toMatchObject({code: 0, stdout: 'Issue 1 is open.'});
    expect(JSON.parse(toolMessages()[0]!)).toEqual({number: 1, title: 'Crash on empty config', state: 'open'});
    expect(http.calls).toEqual([{tool: 'get_issue', args: {number: 1}}]);
  }, 60_000);

  test('faults at startup: a missing command and a silent server are named on stderr; the run goes on', async () => {
    const mark = marker();
    await userConfig({
      mcpStartupTimeoutMs: 5000,
      mcpServers: {ghost: {command: 'nib-no-such-mcp-server'}, mute: silentEntry(mark), fault: faultEntry(mark)},
    });
    model = await startOpenAiServer([sse.toolCall('mcp__fault__fail', {}), sse.toolCall('mcp__fault__crash', {}), sse.text('done anyway')]);
    const result = await runNib(sandbox, nibArgs('yolo'));
    expect(result).toMatchObject({code: 0, stdout: 'done anyway'});
    expect(result.stderr).toContain('nib: MCP server "ghost" skipped: cannot start "nib-no-such-mcp-server": no such command (is it installed and on PATH?)');
    expect(result.stderr).toContain('nib: MCP server "mute" skipped: not ready within 5 s (mcpStartupTimeoutMs)');
    expect(toolMessages()).toEqual(['the widget is broken', expect.stringMatching(/^fault · crash: the server stopped during the call \(the server exited: fault server: crashing on purpose\)/)]);
    expect(await processesWith(mark)).toEqual([]);
  }, 60_000);

  test('a server outside the spec: its bad tool is named in one line on stderr, the rest works, an unreadable image keeps the text', async () => {
    const mark = marker();
    await userConfig({mcpServers: {raw: rawEntry(mark)}});
    model = await startOpenAiServer([sse.toolCalls([{name: 'mcp__raw__echo', arguments: {message: 'hi'}}, {name: 'mcp__raw__bad-image', arguments: {}}]), sse.text('ok')]);
    const result = await runNib(sandbox, nibArgs('yolo'));
    expect(result).toMatchObject({code: 0, stdout: 'ok'});
    expect(result.stderr).toContain('nib: MCP server "raw": tool "grid" left out: its inputSchema has type "array", but a tool\'s arguments are an object\n');
    expect(result.stderr).not.toContain('"code"');
    expect(toolMessages()).toEqual(['echo: hi', 'the chart is below\n[image: image/png, unreadable: its data is not base64]']);
    expect(await processesWith(mark)).toEqual([]);
  }, 60_000);

  test('a project .mcp.json starts only once approved for the workspace', async () => {
    const mark = marker();
    const entry = everythingEntry(mark);
    await writeFile(join(sandbox.workspace, '.mcp.json'), JSON.stringify({mcpServers: {repo: entry}}));
    model = await startOpenAiServer([sse.text('no tools here')]);
    const skipped = await runNib(sandbox, nibArgs('yolo'));
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toContain(`nib: MCP server "repo" (${join(sandbox.workspace, '.mcp.json')}) skipped: project servers start only once approved`);
    expect(model.requests[0]!.body.tools!.some(t => t.function.name.startsWith('mcp__'))).toBe(false);

    const {servers} = await loadMcpConfig({user: {}, userFile: '', root: sandbox.workspace, flagFile: undefined});
    await approveServers(join(sandbox.home, '.local', 'state', 'nib'), sandbox.workspace, servers);
    await model.close();
    model = await startOpenAiServer([sse.toolCall('mcp__repo__echo', {message: 'approved'}), sse.text('ran')]);
    const ran = await runNib(sandbox, nibArgs('yolo'));
    expect(ran).toMatchObject({code: 0, stdout: 'ran'});
    expect(ran.stderr).not.toContain('skipped');
    expect(toolMessages()).toEqual(['Echo: approved']);
    expect(await processesWith(mark)).toEqual([]);
  }, 60_000);

  test('Ctrl+C while print mode waits for a server ends the wait, the run and the server', async () => {
    const mark = marker();
    await userConfig({mcpStartupTimeoutMs: 600_000, mcpServers: {mute: silentEntry(mark)}});
    model = await startOpenAiServer([sse.text('never asked')]);
    const nib = startNib(sandbox, nibArgs('yolo'));
    for (let i = 0; i < 400 && (await processesWith(mark)).length === 0; i++) await new Promise(resolve => setTimeout(resolve, 25));
    expect(await processesWith(mark)).toHaveLength(1);
    nib.child.kill('SIGINT');
    const result = await nib.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('nib: MCP server "mute" skipped: still starting when nib was interrupted');
    expect(model.requests).toHaveLength(0);
    expect(await processesWith(mark)).toEqual([]);
  }, 30_000);
});
