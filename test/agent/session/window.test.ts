import {describe, expect, test} from 'vitest';
import {SessionWindow} from '../../../source/agent/session/window.js';
import {startOpenAiServer} from '../../support/openai-server.js';
import type {Persona} from '../../support/server-persona.js';

// A server that never answers: whatever print mode's first request waits for, it waits in vain.
const silent: typeof fetch = () => new Promise(() => {});

/**
 * A server whose model list (GET /v1/models) answers when the test says so: `answer(model, window)`
 * answers the oldest pending list with that model and window (llama.cpp's meta.n_ctx); other
 * routes are 404s.
 */
function heldServer() {
  const pending: Array<(response: Response) => void> = [];
  const fetch: typeof globalThis.fetch = input =>
    new URL(String(input)).pathname === '/v1/models' ? new Promise(resolve => pending.push(resolve)) : Promise.resolve(new Response('', {status: 404}));
  return {
    fetch,
    answer(model: string, window: number) {
      pending.shift()?.(new Response(JSON.stringify({data: [{id: model, meta: {n_ctx: window}}]}), {headers: {'content-type': 'application/json'}}));
    },
  };
}

/** Whether ready() is done once pending callbacks have run: it either waits for the probe or not at all. */
async function readyAtOnce(window: SessionWindow): Promise<boolean> {
  let done = false;
  void window.ready(60_000).then(() => (done = true));
  await new Promise(resolve => setImmediate(resolve));
  return done;
}

const settle = () => new Promise(resolve => setImmediate(resolve));

describe('what print mode waits for before its first request', () => {
  test('a hosted provider\'s well-known model: the table\'s window at once, no wait for the model list', async () => {
    const window = new SessionWindow({configured: null, compactAt: 0.8});
    void window.probe({baseURL: 'https://api.openai.com/v1', model: 'gpt-4o-mini', request: silent}, []);
    expect(window.window).toBe(128_000);
    expect(window.describe([])).toMatch(/128,000 tokens \(known model\)/);
    expect(await readyAtOnce(window)).toBe(true);
  });

  test('a configured window: no wait, and the server cannot change it', async () => {
    const waiting = new SessionWindow({configured: 8192, compactAt: 0.8});
    void waiting.probe({baseURL: 'http://127.0.0.1:9/v1', model: 'm', request: silent}, []);
    expect(await readyAtOnce(waiting)).toBe(true);

    const server = heldServer();
    const window = new SessionWindow({configured: 8192, compactAt: 0.8});
    const probed = window.probe({baseURL: 'http://127.0.0.1:9/v1', model: 'm', request: server.fetch}, []);
    server.answer('m', 4096);
    expect(await probed).toMatchObject({kind: 'llama.cpp', window: 4096});
    expect(window.window).toBe(8192);
  });

  test('a local server, or a model the table does not know: the probe is waited for', async () => {
    for (const target of [{baseURL: 'http://127.0.0.1:9/v1', model: 'gpt-4o'}, {baseURL: 'https://api.openai.com/v1', model: 'my-finetune'}]) {
      const window = new SessionWindow({configured: null, compactAt: 0.8});
      void window.probe({...target, request: silent}, []);
      expect(window.window).toBeNull();
      expect(await readyAtOnce(window)).toBe(false);
    }
  });
});

describe('an answer that comes late', () => {
  test('a refusal that came first wins: the server refused this very model', async () => {
    const server = heldServer();
    const window = new SessionWindow({configured: null, compactAt: 0.8});
    const probed = window.probe({baseURL: 'http://127.0.0.1:9/v1', model: 'm', request: server.fetch}, []);
    window.learn({window: 6000});
    server.answer('m', 32_768);
    await probed;
    expect(window.window).toBe(6000);
    expect(window.describe([])).toMatch(/6,000 tokens \(from a refusal\)/);
  });

  test('the answer for the model before a switch does not overwrite the new model\'s window', async () => {
    const server = heldServer();
    const window = new SessionWindow({configured: null, compactAt: 0.8});
    const first = window.probe({baseURL: 'https://api.openai.com/v1', model: 'my-finetune', request: server.fetch}, []);
    window.reprobe('gpt-4o', []);
    expect(window.window).toBe(128_000);
    server.answer('my-finetune', 8192);
    await first;
    await settle();
    expect(window.window).toBe(128_000);
  });

  test('the same figure again: no reset, and /context names where it came from', async () => {
    const server = heldServer();
    const window = new SessionWindow({configured: null, compactAt: 0.8});
    let changes = 0;
    window.onChange(() => changes++);
    const probed = window.probe({baseURL: 'https://api.openai.com/v1', model: 'gpt-4o', request: server.fetch}, []);
    expect(changes).toBe(1);
    // What the session learned meanwhile: the server counts more tokens than nib estimates.
    window.tracker.calibrate(2000, [{type: 'user', content: 'a few words'}]);
    const scaled = window.tracker.scale(100);
    server.answer('gpt-4o', 128_000);
    await probed;
    expect(changes).toBe(1);
    expect(window.tracker.scale(100)).toBe(scaled);
    expect(window.describe([])).toMatch(/128,000 tokens \(llama.cpp \/v1\/models\)/);
  });
});

describe('the TUI asks after its first frame', () => {
  /** A held server that counts the requests it is sent. */
  function countingServer() {
    const server = heldServer();
    let asked = 0;
    const fetch: typeof globalThis.fetch = (input, init) => {
      asked++;
      return server.fetch(input, init);
    };
    return {...server, fetch, asked: () => asked};
  }

  /** Once the window is being asked, `start` sends nothing more; the answer then sets the window. */
  async function startAddsNothing(window: SessionWindow, server: ReturnType<typeof countingServer>, model: string, tokens: number) {
    const sent = server.asked();
    window.start([]);
    await settle();
    expect(server.asked()).toBe(sent);
    server.answer(model, tokens);
    await settle();
    expect(window.window).toBe(tokens);
  }

  test('aim sends nothing (a well-known hosted model still has its window); start asks once', async () => {
    const hosted = new SessionWindow({configured: null, compactAt: 0.8});
    hosted.aim({baseURL: 'https://api.openai.com/v1', model: 'gpt-4o-mini', request: silent});
    expect(hosted.window).toBe(128_000);

    const server = countingServer();
    const window = new SessionWindow({configured: null, compactAt: 0.8});
    window.aim({baseURL: 'http://127.0.0.1:9/v1', model: 'm', request: server.fetch});
    await settle();
    expect(server.asked()).toBe(0);
    window.start([]);
    await settle();
    expect(server.asked()).toBeGreaterThan(0);
    await startAddsNothing(window, server, 'm', 4096);
  });

  test('a model switch before start asks for the new model, and start adds nothing', async () => {
    const server = countingServer();
    const window = new SessionWindow({configured: null, compactAt: 0.8});
    window.aim({baseURL: 'http://127.0.0.1:9/v1', model: 'a', request: server.fetch});
    window.reprobe('b', []);
    await settle();
    await startAddsNothing(window, server, 'b', 2048);
  });
});

describe('a window the probe could not have at start', () => {
  /** A server whose model list answers `replies` in turn (then the last again); counts the lists asked. */
  function sequence(...replies: Array<() => Response>) {
    let lists = 0;
    const fetch: typeof globalThis.fetch = async input => {
      if (new URL(String(input)).pathname !== '/v1/models') return new Response('', {status: 404});
      return replies[Math.min(lists++, replies.length - 1)]!();
    };
    return {fetch, lists: () => lists};
  }
  const loading = () => new Response('{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}', {status: 503});
  const loaded = () => Response.json({data: [{id: 'm', meta: {n_ctx: 4096}}]});
  const ended = (reason: 'completed' | 'error') => ({type: 'turn-end', reason, at: 0}) as const;

  test('a server still loading at start (503): asked again once a turn was answered', async () => {
    const server = sequence(loading, loaded);
    const window = new SessionWindow({configured: null, compactAt: 0.8});
    await window.probe({baseURL: 'http://127.0.0.1:9/v1', model: 'm', request: server.fetch}, []);
    expect(window.window).toBeNull();
    // A failed turn says nothing about the server being ready.
    window.observe(ended('error'), []);
    await settle();
    expect(server.lists()).toBe(1);
    window.observe(ended('completed'), []);
    await window.ready(5_000);
    await settle();
    expect(server.lists()).toBe(2);
    expect(window.window).toBe(4096);
    // Known now: no more asking.
    window.observe(ended('completed'), []);
    await settle();
    expect(server.lists()).toBe(2);
  });

  test('a server that answers its list but names no window is not asked again, and one that stays down only three times', async () => {
    const quiet = sequence(() => Response.json({data: [{id: 'm'}]}));
    const window = new SessionWindow({configured: null, compactAt: 0.8});
    await window.probe({baseURL: 'https://example.com/v1', model: 'm', request: quiet.fetch}, []);
    for (let turn = 0; turn < 3; turn++) window.observe(ended('completed'), []);
    await settle();
    expect(quiet.lists()).toBe(1);

    const down = sequence(loading);
    const again = new SessionWindow({configured: null, compactAt: 0.8});
    await again.probe({baseURL: 'http://127.0.0.1:9/v1', model: 'm', request: down.fetch}, []);
    for (let turn = 0; turn < 6; turn++) {
      again.observe(ended('completed'), []);
      await again.ready(5_000);
      await settle();
    }
    expect(down.lists()).toBe(4);
  });

  test('Ollama before it loaded the model: the window it loads with is asked again after the first answer', async () => {
    // Loaded with OLLAMA_CONTEXT_LENGTH=32768, which nib cannot see before the model is loaded.
    const persona: Persona = {kind: 'ollama', window: 32_768, loaded: false, models: ['m']};
    const server = await startOpenAiServer([], {persona});
    try {
      const window = new SessionWindow({configured: null, compactAt: 0.8});
      await window.probe({baseURL: server.url, model: 'm'}, []);
      expect(window.window).toBe(4096);
      persona.loaded = true;
      window.observe(ended('completed'), []);
      await window.ready(5_000);
      for (let i = 0; i < 50 && window.window !== 32_768; i++) await new Promise(resolve => setTimeout(resolve, 20));
      expect(window.window).toBe(32_768);
    } finally {
      await server.close();
    }
  });

  test('/model: the window the person set for the new model, else the server\'s for it', async () => {
    const set: Record<string, number> = {a: 8192};
    const server = heldServer();
    const window = new SessionWindow({configured: 8192, compactAt: 0.8, configuredFor: model => set[model] ?? null});
    void window.probe({baseURL: 'http://127.0.0.1:9/v1', model: 'a', request: server.fetch}, []);
    server.answer('a', 4096);
    await settle();
    expect(window.window).toBe(8192);
    window.reprobe('b', []);
    expect(window.window).toBeNull();
    server.answer('b', 32_768);
    await window.ready(5_000);
    await settle();
    expect(window.window).toBe(32_768);
    expect(window.describe([])).toMatch(/32,768 tokens \(llama\.cpp/);
    window.reprobe('a', []);
    expect(window.window).toBe(8192);
    expect(window.describe([])).toMatch(/8,192 tokens \(configured\)/);
  });
});
