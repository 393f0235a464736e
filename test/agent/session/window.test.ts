import {describe, expect, test} from 'vitest';
import {SessionWindow} from '../../../source/agent/session/window.js';

// A server that never answers: whatever print mode's first request waits for, it waits in vain.
const silent: typeof fetch = () => new Promise(() => {});

/** Whether ready() is done once pending callbacks have run: it either waits for the probe or not at all. */
async function readyAtOnce(window: SessionWindow): Promise<boolean> {
  let done = false;
  void window.ready(60_000).then(() => (done = true));
  await new Promise(resolve => setImmediate(resolve));
  return done;
}

describe('what print mode waits for before its first request', () => {
  test('a hosted provider\'s well-known model: the table\'s window at once, no wait for the model list', async () => {
    const window = new SessionWindow({configured: null, compactAt: 0.8});
    void window.probe({baseURL: 'https://api.openai.com/v1', model: 'gpt-4o-mini', fetch: silent}, []);
    expect(window.window).toBe(128_000);
    expect(window.describe([])).toMatch(/128,000 tokens \(known model\)/);
    expect(await readyAtOnce(window)).toBe(true);
  });

  test('a configured window: no wait, and the server cannot change it', async () => {
    const window = new SessionWindow({configured: 8192, compactAt: 0.8});
    void window.probe({baseURL: 'http://127.0.0.1:9/v1', model: 'm', fetch: silent}, []);
    expect(await readyAtOnce(window)).toBe(true);
    expect(window.window).toBe(8192);
  });

  test('a local server, or a model the table does not know: the probe is waited for', async () => {
    for (const target of [{baseURL: 'http://127.0.0.1:9/v1', model: 'gpt-4o'}, {baseURL: 'https://api.openai.com/v1', model: 'my-finetune'}]) {
      const window = new SessionWindow({configured: null, compactAt: 0.8});
      void window.probe({...target, fetch: silent}, []);
      expect(window.window).toBeNull();
      expect(await readyAtOnce(window)).toBe(false);
    }
  });
});
