import type {Tool} from '../../core/tool.js';
import {resolveTransport, type McpServerConfig, type McpSource} from './config.js';
import {Connection, seconds, type ConnectionState} from './connection.js';
import {mcpToolName, toNibTool} from './tool.js';

export type McpServerState = ConnectionState | 'not-approved' | 'stopped';

/** What `/mcp` shows for one server. */
export type McpServerStatus = {
  name: string;
  source: McpSource;
  file: string;
  state: McpServerState;
  /** The nib names of the tools it offers the model. */
  tools: string[];
  /** Why it failed or was not started. */
  error?: string;
  /** Tools left out because another server already offers a tool of the same nib name. */
  collisions: string[];
  /** Tools left out because their definition is unusable, a line each saying why. */
  invalid: string[];
};

export type McpHubOptions = {
  root: string;
  env: NodeJS.ProcessEnv;
  connectTimeoutMs: number;
  callTimeoutMs: number;
  version: string;
};

// Tools differ in their schema type; the hub only hands them to the registry.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyTool = Tool<any>;

type Collision = {tool: string; owner: string};

/**
 * Every configured MCP server of one session: which run, their state, their tools. Servers
 * connect in the background; `tools()` offers what is ready now, so a slow server never holds up
 * the prompt, and a failed one drops out of the next request.
 */
export class McpHub {
  private readonly connections = new Map<string, Connection>();
  private readonly notStarted = new Map<string, {state: 'not-approved' | 'stopped' | 'failed'; error?: string}>();
  private readonly listeners = new Set<() => void>();
  private toolCache: {tools: AnyTool[]; collisions: Map<string, Collision[]>} | undefined;
  private closed = false;

  constructor(
    readonly servers: readonly McpServerConfig[],
    private readonly options: McpHubOptions,
  ) {
    for (const server of servers) this.notStarted.set(server.name, {state: 'stopped'});
  }

  /** Starts these servers in the background; a server that cannot be configured fails at once. */
  start(names: Iterable<string>): void {
    for (const name of names) void this.startOne(name);
  }

  /** Marks a project server as waiting for the person's approval. */
  hold(name: string): void {
    this.notStarted.set(name, {state: 'not-approved', error: 'a project server: not approved for this workspace yet'});
    this.changed();
  }

  private startOne(name: string): Promise<void> {
    const server = this.servers.find(s => s.name === name);
    if (!server || this.closed) return Promise.resolve();
    const spec = resolveTransport(server, this.options.env, this.options.root);
    if (!spec.ok) {
      this.notStarted.set(name, {state: 'failed', error: spec.error});
      this.changed();
      return Promise.resolve();
    }
    this.notStarted.delete(name);
    const connection = new Connection(name, spec.value, {...this.options, onChange: () => this.changed()});
    this.connections.set(name, connection);
    this.changed();
    return connection.connect();
  }

  /** Stops a server (if running) and starts it again; resolves once it is ready or failed. */
  async restart(name: string): Promise<McpServerStatus | undefined> {
    if (!this.servers.some(s => s.name === name)) return undefined;
    const old = this.connections.get(name);
    this.connections.delete(name);
    await old?.close();
    await this.startOne(name);
    return this.statuses().find(s => s.name === name);
  }

  /**
   * Waits until no server is still connecting, or `timeoutMs`; servers still connecting then are
   * stopped and marked failed (print mode goes on without them and says so).
   */
  async settle(timeoutMs: number, signal?: AbortSignal): Promise<McpServerStatus[]> {
    const pending = [...this.connections.values()].filter(c => c.state === 'connecting');
    let timer: NodeJS.Timeout | undefined;
    // Ctrl+C while waiting ends the wait like the timeout does.
    const timeout = new Promise<void>(resolve => {
      timer = setTimeout(resolve, timeoutMs);
      signal?.addEventListener('abort', () => resolve(), {once: true});
    });
    await Promise.race([Promise.all(pending.map(c => this.untilSettled(c))), timeout]);
    clearTimeout(timer);
    const late = [...this.connections.values()].filter(c => c.state === 'connecting');
    await Promise.all(
      late.map(async connection => {
        this.connections.delete(connection.name);
        await connection.close();
        const error = signal?.aborted ? 'still starting when nib was interrupted' : `not ready within ${seconds(timeoutMs)} (mcpStartupTimeoutMs)`;
        this.notStarted.set(connection.name, {state: 'failed', error});
      }),
    );
    if (late.length > 0) this.changed();
    return this.statuses();
  }

  private untilSettled(connection: Connection): Promise<void> {
    return new Promise(resolve => {
      const check = () => {
        if (connection.state === 'connecting') return;
        this.listeners.delete(check);
        resolve();
      };
      this.listeners.add(check);
      check();
    });
  }

  statuses(): McpServerStatus[] {
    const {collisions} = this.toolSet();
    return this.servers.map(server => {
      const connection = this.connections.get(server.name);
      const lost = collisions.get(server.name) ?? [];
      const base = {
        name: server.name,
        source: server.source,
        file: server.file,
        collisions: lost.map(c => `${c.tool} (already offered by "${c.owner}")`),
        invalid: connection?.state === 'ready' ? connection.leftOut : [],
      };
      if (!connection) {
        const held = this.notStarted.get(server.name) ?? {state: 'stopped' as const};
        return {...base, state: held.state, tools: [], ...(held.error ? {error: held.error} : {})};
      }
      const tools = connection.state === 'ready' ? connection.tools.map(t => mcpToolName(server.name, t.name)) : [];
      return {
        ...base,
        state: connection.state,
        tools: tools.filter(name => !lost.some(c => c.tool === name)),
        ...(connection.error ? {error: connection.error} : {}),
      };
    });
  }

  /** The tools of the servers ready now, in configuration order. */
  tools(): readonly AnyTool[] {
    return this.toolSet().tools;
  }

  private toolSet(): {tools: AnyTool[]; collisions: Map<string, Collision[]>} {
    if (this.toolCache) return this.toolCache;
    const tools: AnyTool[] = [];
    const owner = new Map<string, string>();
    const collisions = new Map<string, Collision[]>();
    for (const server of this.servers) {
      const connection = this.connections.get(server.name);
      if (!connection || connection.state !== 'ready') continue;
      for (const info of connection.tools) {
        const tool = toNibTool(server.name, info, (name, args, ctx, signal) => connection.call(name, args, ctx, signal));
        // A name two servers produce (`a.b` and `a_b`, a cut at 64 characters) would make one
        // tool unreachable or run the wrong server's tool; the first server keeps it.
        if (owner.has(tool.name)) {
          collisions.set(server.name, [...(collisions.get(server.name) ?? []), {tool: tool.name, owner: owner.get(tool.name)!}]);
          continue;
        }
        owner.set(tool.name, server.name);
        tools.push(tool);
      }
    }
    this.toolCache = {tools, collisions};
    return this.toolCache;
  }

  /** Called on every change of state or tools (the TUI's `/mcp` and notices). */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.toolCache = undefined;
    for (const listener of [...this.listeners]) listener();
  }

  /** Ends every server process this hub started; after it, nothing starts again. */
  async close(): Promise<void> {
    this.closed = true;
    const connections = [...this.connections.values()];
    await Promise.all(connections.map(connection => connection.close()));
  }
}
