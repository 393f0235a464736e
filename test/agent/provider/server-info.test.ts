import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterEach, describe, expect, test} from 'vitest';
import {onLocalNetwork} from '../../../source/core/hosts.js';
import {probeServer, tableWindow} from '../../../source/agent/provider/server-info.js';
import {createProvider} from '../../../source/agent/provider/client.js';
import {knownWindow} from '../../../source/agent/provider/known-windows.js';
import {readContextRefusal} from '../../../source/agent/provider/refusal.js';
import {startOpenAiServer, type OpenAiServer} from '../../support/openai-server.js';
import type {Persona} from '../../support/server-persona.js';
import type {AssistantTurn} from '../../../source/core/chat.js';

let server: OpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function listen(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const raw = createServer(handler);
  return new Promise(resolve => raw.listen(0, '127.0.0.1', () => resolve(raw)));
}

async function probe(persona: Persona, model?: string) {
  server = await startOpenAiServer([], {persona});
  return probeServer({baseURL: server.url, ...(model ? {model} : {}), timeoutMs: 2000});
}

describe('the window from the server', () => {
  test('llama.cpp: /v1/models meta.n_ctx', async () => {
    expect(await probe({kind: 'llama.cpp', window: 4096, models: ['qwen.gguf']})).toEqual({
      kind: 'llama.cpp', models: ['qwen.gguf'], window: 4096, source: 'llama.cpp /v1/models',
    });
  });

  test('vLLM: max_model_len of the model asked about', async () => {
    const info = await probe({kind: 'vllm', window: 16384, models: ['a', 'b']}, 'b');
    expect(info).toMatchObject({kind: 'vllm', window: 16384, models: ['a', 'b']});
  });

  test('OpenRouter: context_length', async () => {
    expect(await probe({kind: 'openrouter', window: 200_000, models: ['anthropic/claude-sonnet-4']}, 'anthropic/claude-sonnet-4')).toMatchObject({kind: 'openrouter', window: 200_000});
  });

  test('LM Studio: the loaded context length, else the model maximum (to be asked again once loaded)', async () => {
    const loaded = await probe({kind: 'lmstudio', window: 8192, maxWindow: 32768}, 'nib-test-model');
    expect(loaded).toMatchObject({kind: 'lmstudio', window: 8192});
    expect(loaded.beforeLoad).toBeUndefined();
    await server!.close();
    expect(await probe({kind: 'lmstudio', loaded: false, maxWindow: 32768}, 'nib-test-model')).toMatchObject({kind: 'lmstudio', window: 32768, source: 'LM Studio (model maximum)', beforeLoad: true});
  });

  test('Ollama: the loaded window from /api/ps; before loading, num_ctx or the server default, capped by training', async () => {
    expect(await probe({kind: 'ollama', window: 4096, models: ['llama3.2:3b']}, 'llama3.2:3b')).toMatchObject({kind: 'ollama', window: 4096, source: 'Ollama /api/ps'});
    await server!.close();
    expect(await probe({kind: 'ollama', loaded: false, models: ['llama3.2:3b']}, 'llama3.2:3b')).toMatchObject({kind: 'ollama', window: 4096, beforeLoad: true, source: 'Ollama default'});
    await server!.close();
    expect(await probe({kind: 'ollama', loaded: false, numCtx: 16384, models: ['m']}, 'm')).toMatchObject({window: 16384, source: 'Ollama Modelfile num_ctx'});
    await server!.close();
    expect(await probe({kind: 'ollama', loaded: false, maxWindow: 2048, models: ['m']}, 'm')).toMatchObject({window: 2048});
  });

  test('a hosted server that lists ids only: the table of well-known models, else unknown', async () => {
    expect(await probe({kind: 'openai', models: ['gpt-4o-mini-2024-07-18']}, 'gpt-4o-mini-2024-07-18')).toMatchObject({kind: 'other', window: 128_000});
    await server!.close();
    expect(await probe({kind: 'openai', models: ['my-finetune']}, 'my-finetune')).toMatchObject({kind: 'other', window: null, models: ['my-finetune']});
    expect(knownWindow('openai/gpt-4.1-mini')).toBe(1_047_576);
    expect(knownWindow('claude-sonnet-4-5')).toBe(200_000);
  });

  test('a hosted provider is asked for its model list only, never for the local servers\' routes', async () => {
    const asked: string[] = [];
    // Lists ids only, as OpenAI does; every other route is a 404.
    const raw = await listen((request, response) => {
      asked.push(request.url ?? '');
      if (request.url === '/v1/models') return void response.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({data: [{id: 'gpt-4o'}, {id: 'my-finetune'}]}));
      response.writeHead(404).end();
    });
    try {
      const local = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
      // The provider's origin, answered by the loopback server.
      const viaLoopback: typeof fetch = (input, init) => fetch(String(input).replace('https://api.openai.com', local), init);
      const hosted = {baseURL: 'https://api.openai.com/v1', request: viaLoopback, timeoutMs: 2000};
      expect(await probeServer({...hosted, model: 'gpt-4o'})).toMatchObject({kind: 'other', window: 128_000, source: 'known model'});
      expect(await probeServer({...hosted, model: 'my-finetune'})).toMatchObject({kind: 'other', window: null, models: ['gpt-4o', 'my-finetune']});
      expect(asked).toEqual(['/v1/models', '/v1/models']);
      // The same answers from an address of its own: it could be any local server, so it is asked all routes.
      asked.length = 0;
      expect(await probeServer({baseURL: `${local}/v1`, model: 'gpt-4o', timeoutMs: 2000})).toMatchObject({window: 128_000});
      expect(asked.sort()).toEqual(['/api/ps', '/api/v0/models', '/props', '/v1/models']);
    } finally {
      raw.closeAllConnections();
      await new Promise(resolve => raw.close(resolve));
    }
    expect(tableWindow({baseURL: 'https://api.openai.com/v1/', model: 'gpt-4o'})).toBe(128_000);
    expect(tableWindow({baseURL: 'http://127.0.0.1:8080/v1', model: 'gpt-4o'})).toBeNull();
    // OpenRouter's own list names each route's window: the table's prefixes would overstate some.
    expect(tableWindow({baseURL: 'https://openrouter.ai/api/v1', model: 'openai/o1-mini'})).toBeNull();
    expect(tableWindow({baseURL: 'https://api.anthropic.com/v1', model: 'claude-sonnet-4'})).toBe(200_000);
    expect(tableWindow({baseURL: 'https://api.openai.com/v1', model: 'my-finetune'})).toBeNull();
  });

  test('a local server with the model named: its own routes are asked beside the model list, one round trip; without a model, after it', async () => {
    // The model list is held until the other routes have arrived: asked one after the other, the
    // probe would wait for the list's deadline instead.
    const arrived: string[] = [];
    let releaseList: () => void = () => {};
    const listHeld = new Promise<void>(resolve => (releaseList = resolve));
    const raw = await listen((request, response) => {
      arrived.push(request.url ?? '');
      if (request.url === '/v1/models') {
        void listHeld.then(() => response.writeHead(200, {'content-type': 'application/json'}).end('{"data":[{"id":"m"}]}'));
        return;
      }
      if (arrived.filter(url => url !== '/v1/models').length === 3) releaseList();
      if (request.url === '/props') return void response.writeHead(200).end('{"default_generation_settings":{"n_ctx":8192}}');
      response.writeHead(404).end();
    });
    const baseURL = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`;
    try {
      // The list arrived (asked in turn, it would have passed its deadline unanswered: no models).
      expect(await probeServer({baseURL, model: 'm', timeoutMs: 1000})).toEqual({kind: 'llama.cpp', models: ['m'], window: 8192, source: 'llama.cpp /props'});
      expect(arrived.toSorted()).toEqual(['/api/ps', '/api/v0/models', '/props', '/v1/models']);
      arrived.length = 0;
      // No model named: which model's window is wanted comes from the list, so the routes wait for it.
      expect(await probeServer({baseURL, timeoutMs: 1000})).toMatchObject({kind: 'llama.cpp', window: 8192});
      expect(arrived[0]).toBe('/v1/models');
    } finally {
      raw.closeAllConnections();
      await new Promise(resolve => raw.close(resolve));
    }
  });

  test('which servers are on this machine or a private network (their routes are asked beside the list)', () => {
    const local = ['http://127.0.0.1:11434/v1', 'http://localhost:8080/v1', 'http://[::1]:8080/v1', 'http://10.0.0.5/v1', 'http://192.168.1.20:1234/v1', 'http://172.20.0.3:8000/v1', 'http://100.101.102.103:11434/v1', 'http://gpu-box.local:8080/v1', 'http://ollama:11434/v1', 'http://[fd12::5]:8000/v1', 'http://0.0.0.0:8000/v1', 'http://[::]:8000/v1', 'http://[::ffff:127.0.0.1]:8080/v1', 'http://localhost.:8080/v1', 'http://[fe90::1]:8080/v1'];
    const remote = ['https://api.together.xyz/v1', 'http://172.32.0.1/v1', 'http://8.8.8.8/v1', 'https://llm.example.com/v1', 'http://[::ffff:8.8.8.8]/v1', 'http://[2001:db8::1]/v1', 'not a url'];
    expect(local.filter(url => !onLocalNetwork(url))).toEqual([]);
    expect(remote.filter(url => onLocalNetwork(url))).toEqual([]);
  });

  test('plain http, as fetch would: a redirect is followed, a BOM dropped; a server that never answers is unknown once the deadline passes', async () => {
    const listing = (window: number) => JSON.stringify({data: [{id: 'm', meta: {n_ctx: window}}]});
    const raw = await listen((request, response) => {
      if (request.url === '/v1/models') return void response.writeHead(302, {location: '/moved/models'}).end();
      if (request.url === '/moved/models') return void response.writeHead(200, {'content-type': 'application/json'}).end(listing(8192));
      if (request.url === '/bom/v1/models') return void response.writeHead(200, {'content-type': 'application/json'}).end(`\uFEFF${listing(4096)}`);
      if (request.url?.startsWith('/stall')) return; // never answered
      response.writeHead(404).end();
    });
    try {
      const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
      expect(await probeServer({baseURL: `${url}/v1`, timeoutMs: 2000})).toMatchObject({kind: 'llama.cpp', window: 8192, models: ['m']});
      expect(await probeServer({baseURL: `${url}/bom/v1`, timeoutMs: 2000})).toMatchObject({kind: 'llama.cpp', window: 4096});
      expect(await probeServer({baseURL: `${url}/stall/v1`, timeoutMs: 200})).toEqual({kind: 'other', models: null, window: null, source: null});
    } finally {
      raw.closeAllConnections();
      await new Promise(resolve => raw.close(resolve));
    }
  });

  test('a server that is gone is unknown, not an error', async () => {
    const gone = await startOpenAiServer([]);
    await gone.close();
    expect(await probeServer({baseURL: gone.url, timeoutMs: 500})).toEqual({kind: 'other', models: null, window: null, source: null});
  });
});

describe('a refusal names the window', () => {
  async function refusedTurn(persona: Persona): Promise<AssistantTurn> {
    server = await startOpenAiServer([], {persona});
    const provider = createProvider({baseURL: server.url, apiKey: 'sk-test', model: 'nib-test-model', maxAttempts: 3});
    let turn: AssistantTurn | undefined;
    for await (const event of provider.stream({messages: [{type: 'user', content: 'x'.repeat(40_000)}], tools: [], signal: new AbortController().signal})) {
      if (event.type === 'done') turn = event.turn;
    }
    return turn!;
  }

  test('llama.cpp exceed_context_size_error: n_ctx and n_prompt_tokens, not retried', async () => {
    const turn = await refusedTurn({kind: 'llama.cpp', window: 4096});
    expect(turn.contextRefusal).toEqual({window: 4096, promptTokens: server!.requests[0]!.promptTokens});
    expect(server!.requests).toHaveLength(1);
    expect(turn.error).toMatch(/exceeds the available context size \(4096 tokens\)/);
  });

  test('vLLM "maximum context length is N tokens"', async () => {
    expect((await refusedTurn({kind: 'vllm', window: 8192})).contextRefusal).toMatchObject({window: 8192});
  });

  test('OpenAI context_length_exceeded', async () => {
    expect((await refusedTurn({kind: 'openai', window: 128_000 - 120_000})).contextRefusal).toMatchObject({window: 8000});
  });

  test('LM Studio says it is too long without a figure', async () => {
    expect((await refusedTurn({kind: 'lmstudio', window: 2048})).contextRefusal).toEqual({});
  });

  test('other errors are not refusals', () => {
    expect(readContextRefusal({message: 'Incorrect API key provided.', code: 'invalid_api_key'}, 'Incorrect API key provided.')).toBeNull();
    expect(readContextRefusal({}, "This model's maximum context length is 8,192 tokens.")).toEqual({window: 8192});
  });

  test('LM Studio\'s newer wording names the window it loaded the model with, and the prompt\'s size', () => {
    const message = 'Trying to keep the first 5212 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input';
    expect(readContextRefusal({error: message}, message)).toEqual({window: 4096, promptTokens: 5212});
  });
});
