import {afterEach, beforeEach, expect} from 'vitest';
import {startOpenAiServer, type OpenAiServer} from '../support/openai-server.js';
import {sse, type StreamResponse} from '../support/sse.js';
import {createSandbox, runNib, TEST_API_KEY, type NibResult, type Sandbox} from '../support/nib-process.js';

/**
 * For the sandbox, rules and hooks e2e files: a fresh HOME and workspace per test, `nib -p go`
 * against a loopback server scripted with `turns` and a closing answer, and the tool results
 * the model was sent.
 */
export function guardRuns() {
  let home: Sandbox | undefined;
  let server: OpenAiServer | undefined;
  beforeEach(async () => {
    home = await createSandbox();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await home?.cleanup();
  });
  return {
    get home(): Sandbox {
      return home!;
    },
    get server(): OpenAiServer {
      return server!;
    },
    async nib(turns: StreamResponse[], args: string[], options: {env?: NodeJS.ProcessEnv; prompt?: string} = {}): Promise<NibResult> {
      await server?.close();
      server = await startOpenAiServer([...turns, sse.text('All done.')]);
      const result = await runNib(home!, ['-p', options.prompt ?? 'go', '--base-url', server.url, '--model', 'm', ...args], {env: options.env ?? {}});
      expect(result.stderr).not.toContain(TEST_API_KEY);
      return result;
    },
    toolResults(): string[] {
      return server!.requests.at(-1)!.body.messages.filter(m => m.role === 'tool').map(m => String(m.content));
    },
  };
}
