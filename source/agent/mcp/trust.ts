import {createHash} from 'node:crypto';
import {readFile} from 'node:fs/promises';
import {join} from 'node:path';
import {z} from 'zod';
import {writeAtomic} from '../../tools/fs/workspace.js';
import type {McpServerConfig} from './config.js';

/**
 * The project servers a person approved, per workspace: `{"<root>": {"<name>": "<fingerprint>"}}`
 * in the state dir. The fingerprint covers the entry as written, so a `git pull` that changes a
 * server's command or URL asks again instead of running the new code under the old approval.
 */
const TrustFileSchema = z.record(z.string(), z.record(z.string(), z.string()));
type TrustFile = z.infer<typeof TrustFileSchema>;

export function trustFilePath(stateDir: string): string {
  return join(stateDir, 'mcp-approved.json');
}

export function fingerprint(server: McpServerConfig): string {
  const {type, command, args, env, cwd, url, httpUrl, headers} = server.entry;
  const shape = JSON.stringify({type, command, args, env, cwd, url, httpUrl, headers});
  return createHash('sha256').update(shape).digest('hex').slice(0, 32);
}

async function readTrust(file: string): Promise<TrustFile> {
  try {
    const parsed = TrustFileSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    return parsed.success ? parsed.data : {};
  } catch {
    // Missing or damaged: nothing is approved, so project servers ask again; that errs on the safe side.
    return {};
  }
}

/** Whether each project server was approved for this workspace, as it is configured now. */
export async function approvedServers(stateDir: string, root: string, servers: readonly McpServerConfig[]): Promise<Set<string>> {
  const trust = (await readTrust(trustFilePath(stateDir)))[root] ?? {};
  return new Set(servers.filter(server => trust[server.name] === fingerprint(server)).map(server => server.name));
}

/** Remembers the approval of these servers for this workspace. */
export async function approveServers(stateDir: string, root: string, servers: readonly McpServerConfig[]): Promise<string | undefined> {
  const file = trustFilePath(stateDir);
  const trust = await readTrust(file);
  const forRoot = {...trust[root]};
  for (const server of servers) forRoot[server.name] = fingerprint(server);
  trust[root] = forRoot;
  const written = await writeAtomic(file, Buffer.from(`${JSON.stringify(trust, null, 2)}\n`), {mode: 0o600});
  return written.ok ? undefined : written.error.message;
}
