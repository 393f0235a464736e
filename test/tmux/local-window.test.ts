import {describe, expect, test} from 'vitest';
import {SUMMARY_SYSTEM} from '../../source/agent/compact.js';
import type {RecordedRequest} from '../support/openai-server.js';
import {sse} from '../support/sse.js';
import {IDLE, nibPerTest} from './nib-session.js';

// A local model's small window, in a real terminal: the status shows it, an oversized paste is
// refused without wedging the session, and a conversation that grows past it is compacted first.

const start = nibPerTest();

/** Answers like a model, with the server's own count as usage; a summary when asked for one. */
const model = (text: string) => (request: RecordedRequest) => {
  const usage = {prompt_tokens: request.promptTokens ?? 10, completion_tokens: 40, total_tokens: (request.promptTokens ?? 10) + 40};
  if (request.body.messages[0]?.content === SUMMARY_SYSTEM) return sse.text('Earlier: the user shared numbered notes; nothing is open.', {usage});
  return sse.text(text, {usage});
};

describe('a small window in a real terminal', () => {
  test('the status shows the server\'s window; an oversized paste is refused with the sizes and the next prompt is answered', async () => {
    const session = await start({script: model('hello there'), persona: {kind: 'llama.cpp', window: 4096}, height: 40});
    const {term, server} = session;
    await term.waitForText(/of 4,096 ctx/);
    await term.waitForText(/window is small: 4,096 tokens/);
    // About 30 kB, in pieces tmux accepts (a paste arrives in pieces too).
    for (let piece = 0; piece < 15; piece++) await term.type('word '.repeat(400));
    await term.send('Enter');
    const refused = await term.waitForText(/Not sent: this prompt is about [\d.]+k tokens/);
    expect(refused.replace(/\s+/g, ' ')).toMatch(/the server's window is 4,096, and the system prompt and tools take [\d.]+k of it.*--ctx-size/);
    expect(server.requests).toHaveLength(0);
    await term.waitForText(IDLE);
    await term.type('say hi');
    await term.send('Enter');
    await term.waitForText('hello there');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body.messages.map(message => message.role)).toEqual(['system', 'user']);
    // Up brings the refused text back: nothing typed is lost.
    await term.waitForText(IDLE);
    await term.send('Up');
    await term.send('Up');
    // The input itself, not the refused prompt printed above it: a prompt that long shows its
    // last rows with a count of the ones above.
    const input = await term.waitForText(/⋯ \d+ above \(\d+ rows; ctrl\+g/);
    expect(input).toMatch(/⋯ \d+ above[^\n]*\n[^\n]*word word word/);
  });

  test('an Ollama-like server that answers whatever the size: a conversation growing past the window is compacted before any request overflows', async () => {
    const session = await start({script: model(`Noted. ${'The figures add up as expected. '.repeat(25)}`), persona: {kind: 'ollama', window: 4096, models: ['nib-test-model']}, height: 40});
    const {term, server} = session;
    await term.waitForText(/of 4,096 ctx/);
    for (let step = 1; step <= 8; step++) {
      await term.waitForText(IDLE);
      const answered = server.requests.filter(request => request.body.messages[0]?.content !== SUMMARY_SYSTEM).length;
      await term.type(`Step ${step}: ${'keep these numbers in mind 12345 67890 '.repeat(14)}`);
      await term.send('Enter');
      await term.waitFor(() => server.requests.filter(request => request.body.messages[0]?.content !== SUMMARY_SYSTEM).length > answered, {timeoutMs: 15_000});
    }
    await term.waitForText(IDLE);
    expect(server.requests.filter(request => request.overWindow).map(request => request.promptTokens)).toEqual([]);
    expect(server.requests.some(request => request.body.messages[0]?.content === SUMMARY_SYSTEM)).toBe(true);
    expect(Math.max(...server.requests.map(request => request.promptTokens!))).toBeGreaterThan(2500);
  });
});
