/**
 * Every stream of ../shared/sse-corpus replayed through real HTTP (cut into 1..7-byte writes)
 * and createProvider, compared with its `.expect.json` (conventions in the corpus README).
 * The corpus lives beside the checkout and is never copied into the repo.
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {toUsage} from '../../../source/agent/provider/wire.js';
import {createProvider} from '../../../source/agent/provider/client.js';
import type {AssistantTurn} from '../../../source/core/chat.js';
import {startOpenAiServer, type OpenAiServer} from '../../support/openai-server.js';
import {sse, type Split} from '../../support/sse.js';

const projectRoot = path.resolve(import.meta.dirname, '../../..');
const corpusDir = path.resolve(projectRoot, '../shared/sse-corpus');
const names = existsSync(corpusDir)
  ? readdirSync(corpusDir)
      .filter(file => file.endsWith('.sse'))
      .map(file => file.slice(0, -'.sse'.length))
      .sort()
  : [];

type Expected = {
  text: string;
  reasoning?: string;
  refusal?: string;
  tool_calls: Array<{id: string; name: string; arguments: unknown; arguments_raw: string}>;
  finish_reason: string | null;
  usage?: Record<string, unknown>;
  error?: {message: string};
};

/** Seeds differ per stream so the set of cut points differs too; they stay fixed per name. */
function seedOf(name: string): number {
  let hash = 7;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash;
}

// Without the corpus the whole suite is reported as skipped, with the missing folder in its name:
// a skip, never a pass.
const missing = names.length === 0;
const title = missing ? `sse corpus through HTTP: skipped, ${corpusDir} not found (CI keeps ../shared beside the checkout)` : 'sse corpus through HTTP';
describe.skipIf(missing)(title, () => {
    it('every stream in the corpus has what it must reassemble to', () => {
      for (const name of names) expect(existsSync(path.join(corpusDir, `${name}.expect.json`)), name).toBe(true);
    });

    let server: OpenAiServer;
    // The model name picks the stream and the split, so one server serves every test.
    beforeAll(async () => {
      server = await startOpenAiServer(request => {
        const [name = '', how = 'random'] = String(request.body.model).split('|');
        const body = readFileSync(path.join(corpusDir, `${name}.sse`), 'utf8');
        const split: Split = how === 'whole' ? {type: 'whole'} : {type: 'random', min: 1, max: 7, seed: seedOf(name)};
        return sse.raw(body, {split});
      });
    });
    afterAll(() => server.close());

    const replay = async (name: string, how: 'random' | 'whole'): Promise<AssistantTurn> => {
      const provider = createProvider({
        baseURL: server.url,
        apiKey: 'sk-corpus-test',
        model: `${name}|${how}`,
        maxAttempts: 1,
      });
      let turn: AssistantTurn | undefined;
      for await (const event of provider.stream({messages: [{type: 'user', content: 'hi'}], tools: [], signal: AbortSignal.timeout(20_000)})) {
        if (event.type === 'done') turn = event.turn;
      }
      if (!turn) throw new Error('no done event');
      return turn;
    };

    for (const name of names) {
      it(name, async () => {
        const expected = JSON.parse(readFileSync(path.join(corpusDir, `${name}.expect.json`), 'utf8')) as Expected;
        for (const how of ['random', 'whole'] as const) {
          const turn = await replay(name, how);
          expect(turn.text).toBe(expected.text);
          expect(turn.reasoning).toBe(expected.reasoning ?? '');
          expect(turn.refusal).toBe(expected.refusal ?? '');
          expect(turn.finishReason).toBe(expected.finish_reason);
          expect(
            turn.toolCalls.map(call => ({
              id: call.id,
              name: call.name,
              arguments: JSON.parse(call.arguments) as unknown,
              arguments_raw: call.arguments,
            })),
          ).toEqual(
            // nib sends "" back as "{}" (a zero-argument call), so that is what it keeps.
            expected.tool_calls.map(call => ({...call, arguments_raw: call.arguments_raw === '' ? '{}' : call.arguments_raw})),
          );
          expect(turn.usage).toEqual(expected.usage ? toUsage(expected.usage) : null);
          if (expected.error) {
            expect(turn.error).toContain(expected.error.message);
          } else {
            expect(turn.error).toBeNull();
          }
          expect(turn.malformedChunks ?? 0).toBe(0);
        }
      });
    }
  });
