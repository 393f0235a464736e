import '../support/force-color.js';
import {cleanup, render} from 'ink-testing-library';
import {afterEach, describe, expect, test} from 'vitest';
import type {McpServerStatus} from '../../source/agent/mcp/hub.js';
import {formatStatuses, runMcpCommand, type McpCommands} from '../../source/commands/mcp.js';
import {ApprovalPrompt} from '../../source/components/ApprovalPrompt.js';
import {McpApprove} from '../../source/components/McpApprove.js';
import {ToolBadge} from '../../source/components/ToolBadge.js';
import {createTheme, ThemeContext} from '../../source/components/theme.js';
import {plain} from '../components/helpers.js';
import {waitFor} from '../support/wait-for.js';

afterEach(cleanup);

const ready: McpServerStatus = {name: 'everything', source: 'user', file: 'config.json', state: 'ready', tools: ['mcp__everything__echo', 'mcp__everything__get-sum'], collisions: [], invalid: []};
const failed: McpServerStatus = {name: 'ghost', source: 'flag', file: 'x.json', state: 'failed', tools: [], error: 'cannot start "ghost": no such command (is it installed and on PATH?)', collisions: [], invalid: []};
const waiting: McpServerStatus = {name: 'repo', source: 'project', file: '.mcp.json', state: 'not-approved', tools: [], error: 'not approved', collisions: [], invalid: []};

function commands(statuses: McpServerStatus[]): McpCommands & {restarted: string[]} {
  const restarted: string[] = [];
  return {
    restarted,
    statuses: () => statuses,
    restart: async name => {
      restarted.push(name);
      const found = statuses.find(s => s.name === name);
      return found && {...found, state: 'ready', error: undefined};
    },
    approve: async () => ({ok: true, value: ['repo']}),
  };
}

describe('/mcp', () => {
  test('lists every server with status, tools and last error', () => {
    expect(formatStatuses([ready, failed, waiting])).toBe(
      [
        '● everything  ready · 2 tools · user config',
        '    echo, get-sum',
        '✗ ghost  failed · --mcp-config',
        '    error: cannot start "ghost": no such command (is it installed and on PATH?)',
        '? repo  not approved · project .mcp.json',
        "    waiting: /mcp approve starts the project's servers",
      ].join('\n'),
    );
    expect(formatStatuses([])).toMatch(/^no MCP servers configured/);
  });

  test('a tool left out for its definition is listed under its server with the reason', () => {
    const line = 'tool "grid" left out: its inputSchema has type "array", but a tool\'s arguments are an object';
    expect(formatStatuses([{...ready, invalid: [line]}]).split('\n').at(-1)).toBe(`    ${line}`);
  });

  test('restart NAME restarts that server; an unknown name lists the known ones', async () => {
    const mcp = commands([ready, failed]);
    expect(await runMcpCommand('restart ghost', mcp)).toBe('● ghost  ready · 0 tools · --mcp-config');
    expect(mcp.restarted).toEqual(['ghost']);
    expect(await runMcpCommand('restart nope', mcp)).toBe('no MCP server named "nope" (everything, ghost)');
    expect(await runMcpCommand('restart', mcp)).toBe('usage: /mcp restart NAME');
    expect(await runMcpCommand('frobnicate', mcp)).toMatch(/^unknown \/mcp command "frobnicate"/);
  });

  test('approve starts the waiting project servers', async () => {
    expect(await runMcpCommand('approve', commands([waiting]))).toBe('approved for this workspace and starting: repo (/mcp shows their state)');
  });
});

describe('MCP in the UI', () => {
  test('the badge shows the server and the tool', () => {
    const {lastFrame} = render(
      <ThemeContext value={createTheme({})}>
        <ToolBadge tool={{callId: 'c', name: 'mcp__everything__get-sum', keyArg: '{"a":1,"b":2}', status: 'done', summary: '27 B', output: ''}} now={0} width={80} />
      </ThemeContext>,
    );
    expect(plain(lastFrame())).toBe('✓ everything › get-sum {"a":1,"b":2} · 27 B');
  });

  test('the approval prompt shows the arguments as formatted JSON, escape sequences defused', () => {
    const args = {message: 'hi\u001b]52;c;evil\u0007', n: 2};
    const {lastFrame} = render(
      <ThemeContext value={createTheme({})}>
        <ApprovalPrompt
          request={{id: 'c', name: 'mcp__everything__echo', args, preview: {title: 'everything · echo', outside: false, json: JSON.stringify(args, null, 2)}}}
          rows={20}
          columns={80}
          onDecision={() => undefined}
          onEdit={async () => ({ok: false, error: {code: 'no-editor', message: 'none'}})}
        />
      </ThemeContext>,
    );
    const frame = plain(lastFrame());
    expect(frame).toContain('everything · echo\n  {\n    "message": "hi\\u001b]52;c;evil\\u0007",\n    "n": 2\n  }');
    expect(lastFrame()).not.toContain('\u001b]52');
  });

  test('the project-server question shows what each server runs; keys typed before it was ready answer nothing; n answers once', async () => {
    const answers: boolean[] = [];
    const {lastFrame, stdin} = render(
      <ThemeContext value={createTheme({})}>
        <McpApprove servers={[{name: 'repo', runs: 'npx -y repo-server \u001b[2Jgone'}]} width={100} onAnswer={yes => answers.push(yes)} />
      </ThemeContext>,
    );
    const frame = plain(lastFrame());
    expect(frame).toContain('  repo npx -y repo-server');
    expect(frame).toContain('Start them?');
    expect(frame).not.toContain('y yes');
    expect(lastFrame()).not.toContain('\u001b[2J');
    // Typed as the question appeared (a person still typing their first prompt): ignored.
    await new Promise(resolve => setTimeout(resolve, 20));
    stdin.write('y');
    expect(answers).toEqual([]);
    await waitFor(() => expect(plain(lastFrame())).toContain('Start them?\ny yes, remembered for this workspace · n not now (/mcp approve later)'));
    stdin.write('n');
    stdin.write('y');
    expect(answers).toEqual([false]);
  });
});
