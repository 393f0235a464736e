import {join, resolve} from 'node:path';
import {z} from 'zod';
import type {Result} from '../../core/result.js';
import {PROJECT_FILE} from './project-file.js';
import {serverNameProblem} from './tool.js';
import {readJsonFile, schemaProblem} from '../config/json-file.js';

/**
 * One entry of `mcpServers`, in the shape Claude Code, Cursor and Gemini CLI write, so a person's
 * existing `.mcp.json` works unchanged. Fields nib does not use (`disabled`, `timeout`, ...) are
 * ignored rather than refused for the same reason.
 */
export const McpServerEntrySchema = z
  .object({
    type: z.string().optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    url: z.string().min(1).optional(),
    /** Gemini CLI names the Streamable HTTP address `httpUrl`. */
    httpUrl: z.string().min(1).optional(),
    headers: z.record(z.string(), z.string()).optional(),
  })
  .loose();
export type McpServerEntry = z.infer<typeof McpServerEntrySchema>;

export const McpServersSchema = z.record(z.string(), McpServerEntrySchema);

/** Where a server was configured: a project's servers run only once the person approves them. */
export type McpSource = 'user' | 'project' | 'flag';

export type McpTransportSpec =
  | {type: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd: string | undefined}
  | {type: 'http'; url: string; headers: Record<string, string>};

/** A configured server, before `${VAR}` expansion (the approval fingerprint covers this form). */
export type McpServerConfig = {
  name: string;
  source: McpSource;
  /** The file it came from, for messages. */
  file: string;
  entry: McpServerEntry;
};

/** What the config files hold: servers, and problems worth a line (a bad file, a shadowed name). */
export type McpConfigSet = {servers: McpServerConfig[]; problems: string[]};

export {PROJECT_FILE};

/**
 * Collects servers from the user config, the workspace's `.mcp.json` and `--mcp-config`. A name
 * defined twice keeps the person's own entry (flag, then user config) over the project's: a cloned
 * repository should not be able to replace a server the person set up.
 */
export async function loadMcpConfig(input: {
  user: Record<string, McpServerEntry> | undefined;
  userFile: string;
  root: string;
  flagFile: string | undefined;
}): Promise<McpConfigSet> {
  const problems: string[] = [];
  const layers: McpServerConfig[][] = [];
  if (input.flagFile !== undefined) {
    const file = resolve(input.root, input.flagFile);
    const read = await readServersFile(file, false);
    if (read.ok) layers.push(toConfigs(read.value, 'flag', file));
    else problems.push(read.error);
  }
  layers.push(toConfigs(input.user ?? {}, 'user', input.userFile));
  const projectFile = join(input.root, PROJECT_FILE);
  const project = await readServersFile(projectFile, true);
  if (project.ok) layers.push(toConfigs(project.value, 'project', projectFile));
  else problems.push(project.error);

  const servers: McpServerConfig[] = [];
  for (const layer of layers) {
    for (const server of layer) {
      const badName = serverNameProblem(server.name);
      if (badName) {
        problems.push(`MCP server "${server.name}" in ${server.file} is ignored: ${badName}`);
        continue;
      }
      const first = servers.find(s => s.name === server.name);
      if (first) problems.push(`MCP server "${server.name}" in ${server.file} is ignored: ${first.file} defines a server of the same name`);
      else servers.push(server);
    }
  }
  return {servers, problems};
}

function toConfigs(servers: Record<string, McpServerEntry>, source: McpSource, file: string): McpServerConfig[] {
  return Object.entries(servers).map(([name, entry]) => ({name, source, file, entry}));
}

/** Reads `{"mcpServers": {...}}`; a missing project file is no servers, a missing flag file is an error. */
async function readServersFile(file: string, optional: boolean): Promise<Result<Record<string, McpServerEntry>>> {
  const notStarted = '; its MCP servers are not started';
  const read = await readJsonFile(file);
  if (!read.ok) return {ok: false, error: read.error + notStarted};
  if (read.value === undefined) return optional ? {ok: true, value: {}} : {ok: false, error: `${file}: cannot read it (ENOENT)${notStarted}`};
  const parsed = z.object({mcpServers: McpServersSchema}).safeParse(read.value);
  if (!parsed.success) return {ok: false, error: `${schemaProblem(file, parsed.error)} (expected {"mcpServers": {"name": {"command": ...}}})${notStarted}`};
  return {ok: true, value: parsed.data.mcpServers};
}

/**
 * The transport an entry asks for, with `${VAR}` and `${VAR:-default}` expanded from `env`. An
 * unset variable without a default is an error naming it: starting a server with an empty token
 * fails later with a far less helpful message.
 */
export function resolveTransport(config: McpServerConfig, env: NodeJS.ProcessEnv, root: string): Result<McpTransportSpec> {
  const missing = new Set<string>();
  const expand = (text: string) =>
    text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback: string | undefined) => {
      const value = env[name];
      if (value !== undefined && value !== '') return value;
      if (fallback !== undefined) return fallback;
      missing.add(name);
      return '';
    });
  const expandAll = (record: Record<string, string> | undefined) =>
    Object.fromEntries(Object.entries(record ?? {}).map(([key, value]) => [key, expand(value)]));

  const {entry} = config;
  const type = entry.type ?? (entry.command ? 'stdio' : 'http');
  let spec: McpTransportSpec;
  if (type === 'stdio') {
    if (!entry.command) return {ok: false, error: `"${config.name}" in ${config.file} has no "command"`};
    const cwd = entry.cwd === undefined ? undefined : resolve(root, expand(entry.cwd));
    spec = {type: 'stdio', command: expand(entry.command), args: (entry.args ?? []).map(expand), env: expandAll(entry.env), cwd};
  } else if (type === 'http' || type === 'streamable-http' || type === 'streamableHttp') {
    const url = entry.url ?? entry.httpUrl;
    if (!url) return {ok: false, error: `"${config.name}" in ${config.file} has type "${type}" but no "url"`};
    spec = {type: 'http', url: expand(url), headers: expandAll(entry.headers)};
  } else if (type === 'sse') {
    return {ok: false, error: `"${config.name}" uses the old SSE transport, which nib does not speak; most servers also offer Streamable HTTP: set "type": "http" and its /mcp URL`};
  } else {
    return {ok: false, error: `"${config.name}" has type "${type}"; nib knows "stdio" and "http"`};
  }
  if (missing.size > 0) {
    const names = [...missing].map(name => `$${name}`).join(', ');
    return {ok: false, error: `"${config.name}" in ${config.file} uses ${names}, which ${missing.size > 1 ? 'are' : 'is'} not set`};
  }
  // The raw URL in the message: the expanded one can hold a token.
  if (spec.type === 'http' && !URL.canParse(spec.url)) return {ok: false, error: `"${config.name}": "${entry.url ?? entry.httpUrl}" is not a URL`};
  return {ok: true, value: spec};
}
