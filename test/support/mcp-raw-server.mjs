// An MCP server over stdio written without the SDK, for answers the SDK's own Server refuses to
// send: a tool definition and a call result that break the spec. Newline-delimited JSON-RPC,
// just enough of it for nib's client (initialize, tools/list, tools/call). With the argument
// `tools-not-a-list` its tools/list answer is not even the right shape.
import {createInterface} from 'node:readline';

const tools = [
  {name: 'echo', description: 'Says its message back.', inputSchema: {type: 'object', properties: {message: {type: 'string'}}}},
  {name: 'grid', description: 'Takes an array: the spec wants an object.', inputSchema: {type: 'array'}},
  {name: 'bad-image', description: 'Text, and an image whose data is not base64.', inputSchema: {type: 'object'}},
];

const send = message => process.stdout.write(`${JSON.stringify({jsonrpc: '2.0', ...message})}\n`);

function answer(name, args) {
  if (name === 'echo') return {content: [{type: 'text', text: `echo: ${args.message ?? ''}`}]};
  if (name === 'bad-image') {
    return {content: [{type: 'text', text: 'the chart is below'}, {type: 'image', data: '!!not base64!!', mimeType: 'image/png'}]};
  }
  return {isError: true, content: [{type: 'text', text: `no tool ${name}`}]};
}

createInterface({input: process.stdin}).on('line', line => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined) return;
  const {id, method, params} = message;
  if (method === 'initialize') {
    send({id, result: {protocolVersion: params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'raw', version: '1.0.0'}}});
  } else if (method === 'tools/list') {
    send({id, result: {tools: process.argv.includes('tools-not-a-list') ? 'echo, grid' : tools}});
  } else if (method === 'tools/call') {
    send({id, result: answer(params.name, params.arguments ?? {})});
  } else {
    send({id, error: {code: -32601, message: `no method ${method}`}});
  }
});
