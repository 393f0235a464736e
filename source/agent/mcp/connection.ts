import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js';
import {ErrorCode, McpError, ToolListChangedNotificationSchema} from '@modelcontextprotocol/sdk/types.js';
import {z} from 'zod';
import {errorMessage} from '../../core/result.js';
import type {ToolContext, ToolResult} from '../../core/tool.js';
import type {McpTransportSpec} from './config.js';
import {boundText, toToolResult} from './result.js';
import {checkToolInfo, type McpToolInfo} from './tool.js';

export type ConnectionState = 'connecting' | 'ready' | 'failed' | 'closed';

export type ConnectionOptions = {
  /** Longest wait for `initialize` and the first `tools/list`. */
  connectTimeoutMs: number;
  /** Longest wait for one `tools/call`; a server silent for longer is treated as hung. */
  callTimeoutMs: number;
  version: string;
  /** Called whenever state, error or tools change. */
  onChange: () => void;
};

const STDERR_KEPT = 2048;

/**
 * One attempt to run one server: spawn or dial, initialize, list tools, serve calls, close. A
 * restart makes a new Connection; a closed one never reports again, so a late exit of the old
 * process cannot mark the new one failed.
 */
export class Connection {
  state: ConnectionState = 'connecting';
  error: string | undefined;
  tools: McpToolInfo[] = [];
  /** A line for each tool of its list that nib cannot offer, saying why (see checkToolInfo). */
  leftOut: string[] = [];
  private client: Client | undefined;
  private stderrTail = '';
  private pid: number | undefined;

  constructor(
    readonly name: string,
    private readonly spec: McpTransportSpec,
    private readonly options: ConnectionOptions,
  ) {}

  /** Resolves once ready or failed; never rejects. */
  async connect(): Promise<void> {
    const client = new Client({name: 'nib', version: this.options.version});
    this.client = client;
    // During startup the failed request says more than the close does (a 401, a timeout).
    client.onclose = () => {
      if (this.state === 'ready') this.fail(this.closedMessage());
    };
    try {
      await client.connect(this.transport(), {timeout: this.options.connectTimeoutMs});
      this.tools = await this.listTools();
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        try {
          this.tools = await this.listTools();
          this.changed();
        } catch (error) {
          this.fail(`listing its tools again failed: ${describeError(error)}`);
        }
      });
    } catch (error) {
      if (this.state === 'closed') return;
      const message = this.startupMessage(error);
      // Ended before it counts as failed: whoever waits for the startup may then assume no
      // process of it is left.
      await this.close('failed');
      this.fail(message);
      return;
    }
    if (this.state !== 'connecting') return;
    this.state = 'ready';
    this.changed();
  }

  private transport(): Transport {
    const spec = this.spec;
    if (spec.type === 'http') return new StreamableHTTPClientTransport(new URL(spec.url), {requestInit: {headers: spec.headers}});
    // The SDK passes only a safe set of variables (PATH, HOME, ...) plus the entry's own `env`, so
    // nib's API key does not reach a server that did not ask for it.
    const transport = new StdioClientTransport({command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd, stderr: 'pipe'});
    // The SDK closes the transport itself when initialize fails, and forgets the process as it
    // starts closing; the pid kept here lets close() wait until the process is really gone.
    const start = transport.start.bind(transport);
    transport.start = async () => {
      await start();
      this.pid = transport.pid ?? undefined;
    };
    // Read always: an unread pipe fills and blocks the server on its next log line.
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    return transport;
  }

  /**
   * The server's tools. Not the SDK's listTools: it validates the whole list at once, so one bad
   * tool drops all of them with a dump of zod issues. Each tool is checked on its own instead.
   */
  private async listTools(): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    const leftOut: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client!.request({method: 'tools/list', params: cursor ? {cursor} : {}}, ToolListPage, {timeout: this.options.connectTimeoutMs});
      for (const raw of page.tools) {
        const checked = checkToolInfo(raw);
        if (checked.ok) tools.push(checked.value);
        else leftOut.push(checked.error);
      }
      cursor = page.nextCursor;
    } while (cursor);
    this.leftOut = leftOut;
    return tools;
  }

  /** One tools/call. Esc aborts `signal`, which the SDK turns into `notifications/cancelled`. */
  async call(tool: string, args: Record<string, unknown>, ctx: ToolContext, signal: AbortSignal): Promise<ToolResult> {
    const label = `${this.name} · ${tool}`;
    if (this.state !== 'ready' || !this.client) {
      const why = this.error ? `: ${this.error}` : '';
      return {isError: true, code: 'mcp-unavailable', content: `The MCP server "${this.name}" is not connected (${this.state}${why}). The user can restart it with /mcp restart ${this.name}.`};
    }
    try {
      const result = await this.client.request({method: 'tools/call', params: {name: tool, arguments: args}}, AnyCallResult, {signal, timeout: this.options.callTimeoutMs});
      return await toToolResult(result, label, ctx.redact ? {redact: ctx.redact} : {});
    } catch (error) {
      if (signal.aborted) return {isError: true, code: 'interrupted', content: `${label}: cancelled; the server was asked to stop.`};
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        const wait = seconds(this.options.callTimeoutMs);
        this.fail(`did not answer a call to ${tool} within ${wait}`);
        await this.close('failed');
        return {isError: true, code: 'mcp-timeout', content: `${label}: the server did not answer within ${wait} and was stopped.`};
      }
      if (this.state !== 'ready') {
        return {isError: true, code: 'mcp-crashed', content: `${label}: the server stopped during the call (${this.error ?? 'connection closed'}).`};
      }
      // The server refused the call (unknown tool, invalid arguments): the model can fix that. Its
      // message is the server's text like any result, so it gets the same bound.
      const message = await boundText(`${label}: ${describeError(error)}`, ctx.redact ? {redact: ctx.redact} : {});
      return {isError: true, code: 'mcp-error', content: message.text};
    }
  }

  private fail(message: string): void {
    if (this.state === 'closed' || this.state === 'failed') return;
    this.state = 'failed';
    this.error = message;
    this.changed();
  }

  private changed(): void {
    if (this.state !== 'closed') this.options.onChange();
  }

  private closedMessage(): string {
    const last = this.lastStderrLine();
    return `the server exited${last ? `: ${last}` : ''}`;
  }

  private startupMessage(error: unknown): string {
    const code = (error as NodeJS.ErrnoException).code;
    if (this.spec.type === 'stdio' && code === 'ENOENT') return `cannot start "${this.spec.command}": no such command (is it installed and on PATH?)`;
    if (this.spec.type === 'stdio' && code === 'EACCES') return `cannot start "${this.spec.command}": permission denied`;
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return `did not answer initialize within ${seconds(this.options.connectTimeoutMs)}`;
    }
    const last = this.lastStderrLine();
    if (this.spec.type === 'stdio' && error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return `exited during startup${last ? `: ${last}` : ' without a word on stderr'}`;
    }
    const status = (error as {code?: unknown}).code;
    if (this.spec.type === 'http' && typeof status === 'number' && status >= 400 && status < 600) {
      const hint = status === 401 || status === 403 ? ' (check the token in its "headers")' : '';
      return `the server answered HTTP ${status}${hint}`;
    }
    return `${describeError(error)}${last ? ` (stderr: ${last})` : ''}`;
  }

  private lastStderrLine(): string {
    return this.stderrTail.trim().split('\n').at(-1)?.trim().slice(0, 300) ?? '';
  }

  /** Ends the process (stdio: stdin closed, then SIGTERM, then SIGKILL) or the HTTP session. */
  async close(state: 'failed' | 'closed' = 'closed'): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (state === 'closed') this.state = 'closed';
    if (!client) return;
    client.onclose = undefined;
    try {
      await client.close();
    } catch {
      // Closing a transport that already broke can throw; the wait below still ends the process.
    }
    if (this.pid !== undefined) await endProcess(this.pid);
  }
}

// The shapes nib reads are checked by nib, piece by piece (checkToolInfo, toToolResult): the
// SDK's strict schemas refuse a whole answer for one bad part.
const ToolListPage = z.object({tools: z.array(z.unknown()), nextCursor: z.string().optional()});
const AnyCallResult = z.record(z.string(), z.unknown());

/**
 * One line for a failure. An answer that does not fit even the loose shapes above rejects with
 * a zod error, whose message is a JSON dump of every issue; the first issue says enough. Told by
 * its shape: the SDK parses with its own zod build, whose error class is not nib's.
 */
function describeError(error: unknown): string {
  const issues = (error as {issues?: unknown} | null)?.issues;
  if (Array.isArray(issues) && issues.length > 0) {
    const issue = issues[0] as {path?: unknown; message?: unknown};
    const where = Array.isArray(issue.path) && issue.path.length > 0 ? ` at "${issue.path.map(String).join('.')}"` : '';
    return `the server's answer is not valid MCP${where}: ${String(issue.message ?? 'unreadable')}`;
  }
  return errorMessage(error);
}

export function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * Waits for a server process to be gone, killing it when the SDK's own close (stdin closed, then
 * SIGTERM, then SIGKILL, 2 s apart) has not ended it in time. Polled: the process object is the
 * SDK's, and signal 0 is the one portable way to ask about a pid.
 */
async function endProcess(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + 5_000;
  while (alive() && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 50));
  if (alive()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone between the check and the kill: nothing left to end.
    }
  }
}
