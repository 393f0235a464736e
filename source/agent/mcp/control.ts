import {LIMITS} from '../../core/limits.js';
import type {Result} from '../../core/result.js';
import {loadMcpConfig, type McpServerEntry} from './config.js';
import {McpHub, type McpServerStatus} from './hub.js';
import {approvedServers, approveServers} from './trust.js';

/** What a session and `/mcp` need of MCP: the hub, and approval of the project's servers. */
export type McpControl = {
  hub: McpHub;
  /** Problems with the config files, each a line for the person (a bad .mcp.json, a shadowed name). */
  problems: readonly string[];
  /** Project servers waiting for the person's approval in this workspace. */
  awaiting: () => string[];
  /** Starts every server that may run: the person's own, and the project's approved ones. */
  start: () => void;
  /** Approves the waiting project servers for this workspace (remembered) and starts them. */
  approve: () => Promise<Result<string[]>>;
  statuses: () => McpServerStatus[];
  restart: (name: string) => Promise<McpServerStatus | undefined>;
  close: () => Promise<void>;
};

/**
 * Reads the MCP configuration of a session. Nothing starts yet: print mode starts at once and
 * waits, the TUI starts after its first frame so a slow server never delays the prompt.
 */
export async function prepareMcp(input: {
  /** `mcpServers` of the user config file, and that file's path for messages. */
  user: Record<string, McpServerEntry>;
  userFile: string;
  /** `--mcp-config FILE`, if given. */
  flagFile: string | undefined;
  /** The workspace's real path: `.mcp.json` is read there, approvals are kept per root. */
  root: string;
  /** Where approvals are remembered (nib's XDG state dir). */
  stateDir: string;
  env: NodeJS.ProcessEnv;
  version: string;
}): Promise<McpControl> {
  const {servers, problems} = await loadMcpConfig({user: input.user, userFile: input.userFile, root: input.root, flagFile: input.flagFile});
  const hub = new McpHub(servers, {
    root: input.root,
    env: input.env,
    connectTimeoutMs: LIMITS.mcpConnectTimeoutMs,
    callTimeoutMs: LIMITS.mcpCallTimeoutMs,
    version: input.version,
  });
  const project = servers.filter(server => server.source === 'project');
  const approved = await approvedServers(input.stateDir, input.root, project);
  const waiting = new Set(project.filter(server => !approved.has(server.name)).map(server => server.name));
  for (const name of waiting) hub.hold(name);
  return {
    hub,
    problems,
    awaiting: () => [...waiting],
    start: () => hub.start(servers.filter(server => !waiting.has(server.name)).map(server => server.name)),
    approve: async () => {
      const names = [...waiting];
      const failed = await approveServers(input.stateDir, input.root, project.filter(server => waiting.has(server.name)));
      // The person said yes: the servers start for this run even when the approval cannot be kept.
      waiting.clear();
      hub.start(names);
      if (failed) return {ok: false, error: `started ${names.join(', ')}, but could not remember the approval: ${failed}`};
      return {ok: true, value: names};
    },
    statuses: () => hub.statuses(),
    restart: name => (waiting.has(name) ? Promise.resolve(hub.statuses().find(s => s.name === name)) : hub.restart(name)),
    close: () => hub.close(),
  };
}

/** One line per server print mode goes on without, and per tool it goes on without, for stderr. */
export function missingServerLines(statuses: readonly McpServerStatus[]): string[] {
  return statuses.flatMap(status => {
    if (status.state === 'not-approved') {
      return [`MCP server "${status.name}" (${status.file}) skipped: project servers start only once approved; run nib in this workspace once and answer y (or type /mcp approve)`];
    }
    if (status.state === 'failed') return [`MCP server "${status.name}" skipped: ${status.error ?? 'failed'}`];
    return [
      ...status.collisions.map(collision => `MCP server "${status.name}": tool ${collision} left out`),
      ...status.invalid.map(line => `MCP server "${status.name}": ${line}`),
    ];
  });
}
