import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {ConfigFileSchema} from '../../../source/agent/config/config-file.js';
import {parseFlags} from '../../../source/agent/config/flags.js';
import {approvedServers, approveServers, loadMcpConfig, resolveTransport, type McpServerConfig} from '../../../source/agent/mcp/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nib-mcp-config-'));
});
afterEach(() => rm(dir, {recursive: true, force: true}));

const server = (entry: McpServerConfig['entry'], name = 's'): McpServerConfig => ({name, source: 'project', file: '.mcp.json', entry});

describe('MCP configuration', () => {
  test('a Claude Code .mcp.json loads unchanged, stdio and http, unknown fields ignored', async () => {
    await writeFile(
      join(dir, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          fs: {command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: {}},
          github: {type: 'http', url: 'https://api.example.com/mcp', headers: {Authorization: 'Bearer ${GITHUB_TOKEN}'}, timeout: 5},
        },
      }),
    );
    const loaded = await loadMcpConfig({user: {}, userFile: 'config.json', root: dir, flagFile: undefined});
    expect(loaded.problems).toEqual([]);
    expect(loaded.servers.map(s => [s.name, s.source])).toEqual([['fs', 'project'], ['github', 'project']]);
    expect(resolveTransport(loaded.servers[1]!, {GITHUB_TOKEN: 'ghp_1'}, dir)).toEqual({
      ok: true,
      value: {type: 'http', url: 'https://api.example.com/mcp', headers: {Authorization: 'Bearer ghp_1'}},
    });
  });

  test('the person\'s own entry wins over a project entry of the same name, and that is said', async () => {
    await writeFile(join(dir, '.mcp.json'), JSON.stringify({mcpServers: {tools: {command: 'evil'}}}));
    await writeFile(join(dir, 'extra.json'), JSON.stringify({mcpServers: {more: {command: 'more'}}}));
    const loaded = await loadMcpConfig({user: {tools: {command: 'good'}}, userFile: 'config.json', root: dir, flagFile: 'extra.json'});
    expect(loaded.servers.map(s => [s.name, s.entry.command, s.source])).toEqual([
      ['more', 'more', 'flag'],
      ['tools', 'good', 'user'],
    ]);
    expect(loaded.problems).toEqual([`MCP server "tools" in ${join(dir, '.mcp.json')} is ignored: config.json defines a server of the same name`]);
  });

  test('a server name that would make mcp__<server>__<tool> ambiguous is refused with the reason; the others load', async () => {
    await writeFile(join(dir, '.mcp.json'), JSON.stringify({mcpServers: {every: {command: 'a'}, every__thing: {command: 'b'}, 'every_': {command: 'c'}, 'x._y': {command: 'd'}}}));
    const loaded = await loadMcpConfig({user: {}, userFile: 'config.json', root: dir, flagFile: undefined});
    expect(loaded.servers.map(s => s.name)).toEqual(['every']);
    const file = join(dir, '.mcp.json');
    const ambiguous = 'which would make mcp__<server>__<tool> names and permission rules ambiguous';
    expect(loaded.problems).toEqual([
      `MCP server "every__thing" in ${file} is ignored: its name contains "__", ${ambiguous}; rename it, e.g. to "every_thing"`,
      `MCP server "every_" in ${file} is ignored: its name ends in "_", ${ambiguous}; rename it, e.g. to "every"`,
      `MCP server "x._y" in ${file} is ignored: its name (read as "x__y") contains "__", ${ambiguous}; rename it, e.g. to "x_y"`,
    ]);
  });

  test('a token typed without quotes in a broken .mcp.json is not quoted back in the problem line', async () => {
    await writeFile(join(dir, '.mcp.json'), '{"mcpServers": {"a": {"url": "http://x", "headers": {"Authorization": Bearer sk-live-12345}}}}');
    const loaded = await loadMcpConfig({user: {}, userFile: 'config.json', root: dir, flagFile: undefined});
    expect(loaded.problems[0]).toMatch(/\.mcp\.json: not valid JSON/);
    expect(loaded.problems[0]).not.toMatch(/Bearer|sk-/);
  });

  test('a broken .mcp.json or a missing --mcp-config file is a problem line, not a crash', async () => {
    await writeFile(join(dir, '.mcp.json'), '{"mcpServers": {"a": ');
    const loaded = await loadMcpConfig({user: {}, userFile: 'config.json', root: dir, flagFile: 'nope.json'});
    expect(loaded.servers).toEqual([]);
    expect(loaded.problems[0]).toBe(`${join(dir, 'nope.json')}: cannot read it (ENOENT); its MCP servers are not started`);
    expect(loaded.problems[1]).toMatch(/\.mcp\.json: not valid JSON \(.+\); its MCP servers are not started$/);
    await writeFile(join(dir, '.mcp.json'), JSON.stringify({mcpServers: {a: {args: 'x'}}}));
    const typed = await loadMcpConfig({user: {}, userFile: 'config.json', root: dir, flagFile: undefined});
    expect(typed.problems[0]).toMatch(/field "mcpServers\.a\.args": .*expected array/);
  });

  test('${VAR} and ${VAR:-default} expand; an unset variable names itself; SSE and bad types explain', () => {
    const env = {HOME_DIR: '/h', TOKEN: 't'};
    expect(resolveTransport(server({command: '${HOME_DIR}/bin/s', args: ['--x=${MODE:-fast}'], env: {T: '${TOKEN}'}, cwd: 'sub'}), env, '/w')).toEqual({
      ok: true,
      value: {type: 'stdio', command: '/h/bin/s', args: ['--x=fast'], env: {T: 't'}, cwd: '/w/sub'},
    });
    expect(resolveTransport(server({command: 's', env: {A: '${NOPE}', B: '${ALSO_NOPE}'}}), env, '/w')).toEqual({
      ok: false,
      error: '"s" in .mcp.json uses $NOPE, $ALSO_NOPE, which are not set',
    });
    expect(resolveTransport(server({type: 'sse', url: 'http://x/sse'}), env, '/w')).toMatchObject({ok: false, error: expect.stringContaining('"type": "http"')});
    expect(resolveTransport(server({type: 'ws', url: 'ws://x'}), env, '/w')).toEqual({ok: false, error: '"s" has type "ws"; nib knows "stdio" and "http"'});
    expect(resolveTransport(server({}), env, '/w')).toEqual({ok: false, error: '"s" in .mcp.json has type "http" but no "url"'});
    expect(resolveTransport(server({type: 'http', url: '${TOKEN}'}), env, '/w')).toEqual({ok: false, error: '"s": "${TOKEN}" is not a URL'});
  });

  test('approval is per workspace and per entry: a changed command asks again', async () => {
    const state = join(dir, 'state');
    const a = server({command: 'a'}, 'a');
    const b = server({command: 'b'}, 'b');
    expect(await approvedServers(state, '/w1', [a, b])).toEqual(new Set());
    expect(await approveServers(state, '/w1', [a])).toBeUndefined();
    expect(await approvedServers(state, '/w1', [a, b])).toEqual(new Set(['a']));
    expect(await approvedServers(state, '/w2', [a, b])).toEqual(new Set());
    expect(await approvedServers(state, '/w1', [server({command: 'a', args: ['--evil']}, 'a')])).toEqual(new Set());
  });

  test('the config file accepts mcpServers and mcpStartupTimeoutMs; --mcp-config is a flag', () => {
    expect(ConfigFileSchema.safeParse({mcpServers: {x: {command: 'y'}}, mcpStartupTimeoutMs: 500}).success).toBe(true);
    expect(ConfigFileSchema.safeParse({mcpStartupTimeoutMs: 0}).success).toBe(false);
    expect(parseFlags(['--mcp-config', 'servers.json', '-p', 'hi'])).toMatchObject({ok: true, value: {mcpConfig: 'servers.json', prompt: 'hi'}});
  });
});
