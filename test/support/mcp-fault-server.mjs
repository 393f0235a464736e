// A real MCP server over stdio (the SDK's own Server class) whose tools misbehave on purpose, for
// nib's fault tests. Plain JavaScript so nib can spawn it with `node` like any installed server.
// MCP_FAULT_LOG names a file where it notes what it saw (a cancellation), for the tests to read.
import {appendFileSync} from 'node:fs';
import {Server} from '@modelcontextprotocol/sdk/server/index.js';
import {StdioServerTransport} from '@modelcontextprotocol/sdk/server/stdio.js';
import {CallToolRequestSchema, ListToolsRequestSchema} from '@modelcontextprotocol/sdk/types.js';

const note = text => {
  if (process.env.MCP_FAULT_LOG) appendFileSync(process.env.MCP_FAULT_LOG, `${text}\n`);
};

const empty = {type: 'object', properties: {}};
const tools = [
  {name: 'fail', description: 'Always answers with isError.', inputSchema: empty},
  {name: 'big', description: 'Answers with 5 MB of text.', inputSchema: empty},
  {name: 'big-error', description: 'Refuses the call with a 100 KB JSON-RPC error message.', inputSchema: empty},
  {name: 'crash', description: 'Exits in the middle of the call.', inputSchema: empty},
  {name: 'hang', description: 'Never answers; notes a cancellation.', inputSchema: empty},
  {name: 'mixed', description: 'Text, an image, a resource and structured content.', inputSchema: empty},
  {
    name: 'refs',
    description: 'A schema with $ref and $defs.',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {point: {$ref: '#/$defs/point'}, label: {type: 'string'}},
      required: ['point'],
      $defs: {point: {type: 'object', properties: {x: {type: 'number'}, y: {type: 'number'}}, required: ['x', 'y']}},
    },
  },
];

const server = new Server({name: 'fault', version: '1.0.0'}, {capabilities: {tools: {}}});
server.setRequestHandler(ListToolsRequestSchema, async () => ({tools}));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case 'fail':
      return {isError: true, content: [{type: 'text', text: 'the widget is broken'}]};
    case 'big': {
      const line = `${'x'.repeat(99)}\n`;
      return {content: [{type: 'text', text: `BEGIN\n${line.repeat(50_000)}END`}]};
    }
    case 'big-error':
      // Thrown, not returned: the SDK's Server answers with a JSON-RPC error carrying this message.
      throw new Error(`BEGIN ${'y'.repeat(100_000)} END`);
    case 'crash':
      process.stderr.write('fault server: crashing on purpose\n');
      process.exit(3);
    case 'hang':
      note('hang started');
      return new Promise(resolve => {
        extra.signal.addEventListener('abort', () => {
          note('hang cancelled');
          resolve({content: [{type: 'text', text: 'too late'}]});
        });
      });
    case 'mixed':
      return {
        content: [
          {type: 'text', text: 'here you are'},
          {type: 'image', data: Buffer.alloc(3000).toString('base64'), mimeType: 'image/png'},
          {type: 'resource', resource: {uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'hello'}},
        ],
        structuredContent: {temperature: 21, unit: 'C'},
      };
    case 'refs':
      return {content: [{type: 'text', text: `point ${args.point?.x},${args.point?.y} ${args.label ?? ''}`.trim()}]};
    default:
      return {isError: true, content: [{type: 'text', text: `no tool ${request.params.name}`}]};
  }
});
await server.connect(new StdioServerTransport());
