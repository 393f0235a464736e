import type {McpServerStatus} from '../agent/mcp/hub.js';
import type {Result} from '../core/result.js';

/** What `/mcp` needs of the session's MCP servers. */
export type McpCommands = {
  statuses: () => McpServerStatus[];
  restart: (name: string) => Promise<McpServerStatus | undefined>;
  /** Approves the workspace's waiting project servers (remembered) and starts them. */
  approve: () => Promise<Result<string[]>>;
};

const icons: Record<McpServerStatus['state'], string> = {
  connecting: '…',
  ready: '●',
  failed: '✗',
  closed: '○',
  stopped: '○',
  'not-approved': '?',
};

/** `/mcp`, `/mcp restart NAME`, `/mcp approve`: returns the text to show. */
export async function runMcpCommand(arg: string, mcp: McpCommands): Promise<string> {
  const [verb, name] = arg.split(/\s+/, 2);
  if (!verb) return formatStatuses(mcp.statuses());
  if (verb === 'restart') {
    if (!name) return 'usage: /mcp restart NAME';
    const status = await mcp.restart(name);
    if (!status) return `no MCP server named "${name}" (${mcp.statuses().map(s => s.name).join(', ') || 'none configured'})`;
    if (status.state === 'not-approved') return `"${name}" is a project server not approved yet: /mcp approve starts it`;
    return formatStatuses([status]);
  }
  if (verb === 'approve') {
    const approved = await mcp.approve();
    if (!approved.ok) return approved.error;
    if (approved.value.length === 0) return 'no project MCP servers are waiting for approval';
    return `approved for this workspace and starting: ${approved.value.join(', ')} (/mcp shows their state)`;
  }
  return `unknown /mcp command "${verb}": /mcp lists the servers, /mcp restart NAME restarts one, /mcp approve starts the project's`;
}

export function formatStatuses(statuses: readonly McpServerStatus[]): string {
  if (statuses.length === 0) return 'no MCP servers configured (add "mcpServers" to the config file or a .mcp.json in the workspace)';
  return statuses
    .flatMap(status => {
      const where = status.source === 'project' ? 'project .mcp.json' : status.source === 'flag' ? '--mcp-config' : 'user config';
      const head = `${icons[status.state]} ${status.name}  ${status.state.replace('-', ' ')}${status.state === 'ready' ? ` · ${status.tools.length} tools` : ''} · ${where}`;
      const lines = [head];
      // The model sees mcp__<server>__<tool>; the person reads the tool names under the server.
      if (status.tools.length > 0) lines.push(`    ${status.tools.map(tool => tool.replace(/^mcp__.+?__/, '')).join(', ')}`);
      if (status.error) lines.push(`    ${status.state === 'not-approved' ? 'waiting: /mcp approve starts the project\'s servers' : `error: ${status.error}`}`);
      for (const collision of status.collisions) lines.push(`    left out: ${collision}`);
      for (const line of status.invalid) lines.push(`    ${line}`);
      return lines;
    })
    .join('\n');
}
