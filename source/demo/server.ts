import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {nextReply, type DemoReply} from './script.js';

export type DemoServer = {
  /** Base URL ending in /v1. */
  url: string;
  close: () => Promise<void>;
};

export type DemoServerOptions = {
  /** Pause between streamed chunks, so the answer visibly streams (ms). */
  chunkDelayMs?: number;
};

/**
 * A tiny OpenAI-compatible Chat Completions server on 127.0.0.1 that streams the demo's scripted
 * replies as real SSE. Only what nib needs: POST /v1/chat/completions with stream: true.
 */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const delayMs = options.chunkDelayMs ?? 12;
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, {'content-type': 'application/json'}).end(JSON.stringify({error: {message: 'not found'}}));
        return;
      }
      let messages: Array<{role: string; content?: string | null}> = [];
      try {
        messages = (JSON.parse(Buffer.concat(parts).toString('utf8')) as {messages: typeof messages}).messages ?? [];
      } catch {
        // A body that is not JSON gets the first reply; the demo has nothing better to say.
      }
      res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive'});
      void stream(res, nextReply(messages), promptTokens(parts), delayMs);
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise(resolve => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function stream(res: NodeJS.WritableStream & {destroyed?: boolean}, reply: DemoReply, promptTokens: number, delayMs: number) {
  const id = `chatcmpl-demo-${Date.now()}`;
  const send = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    res.write(`data: ${JSON.stringify({id, object: 'chat.completion.chunk', created: 0, model: 'nib-demo', choices: [{index: 0, delta, finish_reason: finishReason}]})}\n\n`);
  const pause = () => new Promise(resolve => setTimeout(resolve, delayMs));
  send({role: 'assistant', content: ''});
  for (const piece of words(reply.reasoning ?? '')) {
    if (res.destroyed) return;
    send({reasoning_content: piece});
    await pause();
  }
  for (const piece of words(reply.text)) {
    if (res.destroyed) return;
    send({content: piece});
    await pause();
  }
  if (reply.toolCall) {
    send({
      tool_calls: [
        {index: 0, id: `call_${Date.now()}`, type: 'function', function: {name: reply.toolCall.name, arguments: JSON.stringify(reply.toolCall.arguments)}},
      ],
    });
  }
  send({}, reply.toolCall ? 'tool_calls' : 'stop');
  const completionTokens = Math.ceil((reply.text.length + (reply.reasoning?.length ?? 0)) / 4);
  res.write(
    `data: ${JSON.stringify({id, object: 'chat.completion.chunk', created: 0, model: 'nib-demo', choices: [], usage: {prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens}})}\n\n`,
  );
  res.end('data: [DONE]\n\n');
}

/** Pieces of a word or two with their spaces, like a model's tokens. */
function words(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** A rough token count (4 characters a token) so the status bar has something true-ish to show. */
function promptTokens(parts: Buffer[]): number {
  return Math.ceil(parts.reduce((sum, part) => sum + part.length, 0) / 4);
}
