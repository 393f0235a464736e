import {existsSync} from 'node:fs';
import {join} from 'node:path';
import type {Config} from '../config/config.js';
import {nibDir} from '../config/xdg.js';
import type {McpControl} from '../mcp/control.js';
import {PROJECT_FILE} from '../mcp/project-file.js';
import {VERSION} from '../../core/version.js';

/**
 * The session's MCP servers, or undefined when none is configured anywhere. The SDK is loaded
 * only then: a person without MCP servers pays nothing for it at startup.
 */
export async function openMcp(config: Config, root: string, env: NodeJS.ProcessEnv): Promise<McpControl | undefined> {
  const configured = Object.keys(config.mcpServers).length > 0 || config.mcpConfig !== undefined || existsSync(join(root, PROJECT_FILE));
  if (!configured) return undefined;
  const {prepareMcp} = await import('../mcp/control.js');
  return prepareMcp({
    user: config.mcpServers,
    userFile: config.configPath,
    flagFile: config.mcpConfig,
    root,
    stateDir: nibDir(env, 'XDG_STATE_HOME'),
    env,
    version: VERSION,
  });
}

/**
 * Print mode: starts the servers that may run, waits for them at most `mcpStartupTimeoutMs`, and
 * names on stderr each one it goes on without (not approved, failed, too slow).
 */
export async function startMcpForPrint(mcp: McpControl, timeoutMs: number, warn: (line: string) => void, signal?: AbortSignal): Promise<void> {
  const {missingServerLines} = await import('../mcp/control.js');
  for (const problem of mcp.problems) warn(problem);
  mcp.start();
  for (const line of missingServerLines(await mcp.hub.settle(timeoutMs, signal))) warn(line);
}
