import {PassThrough} from 'node:stream';
import {afterEach, describe, expect, test} from 'vitest';
import {runPrint} from '../../source/print/print.js';
import {toTerminalText} from '../../source/core/terminal-text.js';
import {startOpenAiServer, type OpenAiServer} from '../support/openai-server.js';
import {createSandbox, openTestSession, type Sandbox} from '../support/session.js';
import {sse} from '../support/sse.js';

let server: OpenAiServer | undefined;
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await sandbox?.cleanup();
  sandbox = undefined;
});

/** Runs one print-mode turn against the loopback server; stdout may claim to be a terminal. */
async function print(script: Parameters<typeof startOpenAiServer>[0], stdoutIsTTY: boolean) {
  server = await startOpenAiServer(script);
  sandbox = await createSandbox('nib-print-');
  const {config, session} = await openTestSession(sandbox, ['-p', 'go', '--base-url', server.url], {canAsk: false});
  const stdout = Object.assign(new PassThrough(), {isTTY: stdoutIsTTY});
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', chunk => (out += String(chunk)));
  stderr.on('data', chunk => (err += String(chunk)));
  const code = await runPrint(config, session, 'go', {stdout, stderr, signal: new AbortController().signal});
  await session.close();
  return {code, out, err};
}

const hostile = 'Done.\u001b]52;c;cHduZWQ=\u0007\u001b[2J hidden\rshown\r\nnext\tline';

describe('print mode and the terminal', () => {
  test('toTerminalText keeps tabs and line breaks, drops escapes, bells and lone carriage returns', () => {
    expect(toTerminalText(hostile)).toBe('Done.]52;c;cHduZWQ=[2J hiddenshown\r\nnext\tline');
  });

  test('a terminal gets the answer without escape sequences; a pipe gets it byte for byte', async () => {
    const terminal = await print([sse.text(hostile)], true);
    expect(terminal.code).toBe(0);
    expect(terminal.out).not.toMatch(/[\u001b\u0007]/);
    expect(terminal.out).toContain('Done.');
    const pipe = await print([sse.text(hostile)], false);
    expect(pipe.out).toBe(hostile);
  });

  test('stderr lines never carry escape sequences from the model', async () => {
    const result = await print([sse.toolCall('read', {path: 'no\u001b[31such\u001b]0;pwned\u0007.txt'}), sse.text('ok')], false);
    expect(result.err).toContain('→ read no');
    expect(result.err).not.toMatch(/[\u001b\u0007]/);
  });
});

describe('print mode and what the stream could not carry', () => {
  test('a chunk that is not JSON is said on stderr; the answer is kept and the exit is 0', async () => {
    const chunk = (content: string) => `data: {"choices":[{"index":0,"delta":{"content":"${content}"}}]}\n\n`;
    const body = `${chunk('Before ')}data: {broken\n\n${chunk('After')}data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`;
    const result = await print([sse.raw(body)], false);
    expect(result.code).toBe(0);
    expect(result.out).toBe('Before After');
    expect(result.err).toBe(`nib: 1 chunk of the stream from ${server!.url} was not JSON and was skipped; the answer may be missing a piece\n`);
  });
});
