/**
 * A Streamable HTTP MCP server on 127.0.0.1, built from the SDK's own server classes, shaped like
 * a GitHub-style remote server: it wants `Authorization: Bearer <token>` and offers issue tools.
 *
 *   const server = await startMcpHttpServer({token: 'secret'});
 *   // .mcp.json: {"mcpServers": {"issues": {"type": "http", "url": server.url, "headers": {...}}}}
 *   server.calls      // every tools/call it served, in order
 *   await server.close();
 *
 * Stateless (a fresh server per request), which is how most hosted servers run.
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {StreamableHTTPServerTransport} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {z} from 'zod';

export type McpHttpServer = {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  url: string;
  calls: Array<{tool: string; args: unknown}>;
  /** Requests refused for a missing or wrong token. */
  unauthorized: number;
  close: () => Promise<void>;
};

const issues = [
  {number: 1, title: 'Crash on empty config', state: 'open'},
  {number: 2, title: 'Support MCP', state: 'closed'},
];

function buildServer(calls: McpHttpServer['calls']): McpServer {
  const server = new McpServer({name: 'issues', version: '1.0.0'});
  server.registerTool(
    'list_issues',
    {description: 'List the issues of the repository.', inputSchema: {state: z.enum(['open', 'closed', 'all']).optional()}},
    async ({state}) => {
      calls.push({tool: 'list_issues', args: {state}});
      const shown = issues.filter(issue => !state || state === 'all' || issue.state === state);
      return {content: [{type: 'text', text: shown.map(i => `#${i.number} ${i.title} (${i.state})`).join('\n')}]};
    },
  );
  server.registerTool(
    'get_issue',
    {description: 'One issue by number.', inputSchema: {number: z.number().int()}},
    async ({number}) => {
      calls.push({tool: 'get_issue', args: {number}});
      const issue = issues.find(i => i.number === number);
      if (!issue) return {isError: true, content: [{type: 'text', text: `no issue #${number}`}]};
      return {content: [{type: 'text', text: JSON.stringify(issue)}], structuredContent: issue};
    },
  );
  return server;
}

export async function startMcpHttpServer(options: {token: string}): Promise<McpHttpServer> {
  const state: McpHttpServer = {url: '', calls: [], unauthorized: 0, close: async () => undefined};
  const http = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.headers.authorization !== `Bearer ${options.token}`) {
      state.unauthorized++;
      response.writeHead(401, {'content-type': 'application/json'}).end(JSON.stringify({error: 'bad token'}));
      return;
    }
    const server = buildServer(state.calls);
    const transport = new StreamableHTTPServerTransport({sessionIdGenerator: undefined});
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>(resolve => http.listen(0, '127.0.0.1', resolve));
  const {port} = http.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}/mcp`;
  state.close = () =>
    new Promise<void>(resolve => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return state;
}
