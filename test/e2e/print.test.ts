import {execFileSync} from 'node:child_process';
import {createServer, request as httpRequest} from 'node:http';
import type {AddressInfo} from 'node:net';
import {existsSync} from 'node:fs';
import {mkdir, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {startOpenAiServer, TEST_CA, type OpenAiServer, type Script} from '../support/openai-server.js';
import {sse} from '../support/sse.js';
import type {Persona} from '../support/server-persona.js';
import {
  createSandbox,
  filesContaining,
  jsonEvents,
  runNib,
  startNib,
  TEST_API_KEY,
  type NibResult,
  type Sandbox,
} from '../support/nib-process.js';

let sandbox: Sandbox;
let server: OpenAiServer | undefined;
const results: NibResult[] = [];

beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  // The key may appear in no byte nib printed or wrote, whatever the test did.
  for (const result of results.splice(0)) {
    expect(result.stdout).not.toContain(TEST_API_KEY);
    expect(result.stderr).not.toContain(TEST_API_KEY);
  }
  expect(await filesContaining(sandbox.root, TEST_API_KEY)).toEqual([]);
  await sandbox.cleanup();
});

async function nib(script: Script, args: string[], env: NodeJS.ProcessEnv = {}): Promise<NibResult> {
  server = await startOpenAiServer(script);
  const result = await runNib(sandbox, ['--base-url', server.url, '--model', 'test-model', ...args], {env});
  results.push(result);
  return result;
}

describe('nib -p', () => {
  test('reads a file, then answers: stdout is exactly the answer, stderr shows the call', async () => {
    await writeFile(join(sandbox.workspace, 'package.json'), '{\n  "name": "demo-pkg"\n}\n');
    const answer = 'The package is called **demo-pkg**.';
    const result = await nib(
      [sse.toolCall('read', {path: 'package.json'}, {id: 'call_read_1'}), sse.text(answer)],
      ['-p', 'read package.json and tell me the name'],
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(answer);
    expect(result.stderr).toContain('→ read package.json');

    const second = server!.requests[1]!.body;
    const tool = second.messages.at(-1)!;
    expect(tool).toMatchObject({role: 'tool', tool_call_id: 'call_read_1'});
    expect(tool.content).toMatch(/1\s*\t?\s*\{/);
    expect(tool.content).toMatch(/2.*"name": "demo-pkg"/);
    expect(second.messages.at(-2)).toMatchObject({
      role: 'assistant',
      tool_calls: [{id: 'call_read_1', function: {name: 'read'}}],
    });
  });

  test('over https: the window probe and the streamed answer go through TLS; an untrusted certificate is one line, not retried', async () => {
    server = await startOpenAiServer([sse.text('secure pong')], {persona: {kind: 'llama.cpp', window: 4096}, tls: true});
    const run = async (prompt: string, env: NodeJS.ProcessEnv) => {
      const result = await runNib(sandbox, ['-p', prompt, '--base-url', server!.url, '--model', 'm'], {env});
      results.push(result);
      return result;
    };
    const trusted = {NODE_EXTRA_CA_CERTS: TEST_CA};
    // The window came back over TLS: a prompt over it is refused before anything is sent.
    const tooLong = await run('explain: ' + 'the loop reads files and streams tokens '.repeat(800), trusted);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toMatch(/^nib: Not sent: .*the server's window is 4,096/);
    expect(server.requests).toHaveLength(0);
    expect(await run('ping', trusted)).toMatchObject({code: 0, stdout: 'secure pong'});
    expect(server.requests).toHaveLength(1);
    const untrusted = await run('ping', {});
    expect(untrusted.code).toBe(1);
    // Not retried: the same certificate comes back every time.
    expect(untrusted.stderr.split('\n')).toEqual([expect.stringMatching(/^nib: cannot reach https:\/\/127\.0\.0\.1:\d+\/v1 \(self-signed certificate.*\): its certificate is not trusted\. NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem adds the authority that signed it/), '']);
    expect(untrusted.stderr).toContain("NODE_USE_SYSTEM_CA=1 trusts the system's store");
    expect(server.requests).toHaveLength(1);
  });

  test('behind a proxy: NODE_USE_ENV_PROXY=1 with HTTP_PROXY sends the probe and the request through it', async () => {
    server = await startOpenAiServer([sse.text('proxied pong')]);
    // A forward proxy: it gets each request with the whole URL and passes it on.
    const seen: string[] = [];
    const proxy = createServer((request, response) => {
      seen.push(`${request.method} ${request.url}`);
      const onward = httpRequest(request.url!, {method: request.method, headers: request.headers}, answer => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      request.pipe(onward);
    });
    await new Promise<void>(resolve => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const result = await runNib(sandbox, ['-p', 'ping', '--base-url', server.url, '--model', 'm'], {
        env: {NODE_USE_ENV_PROXY: '1', HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, NO_PROXY: ''},
      });
      results.push(result);
      expect(result).toMatchObject({code: 0, stdout: 'proxied pong'});
      expect(seen).toContain(`POST ${server.url}/chat/completions`);
      expect(seen).toContain(`GET ${server.url}/models`);
    } finally {
      proxy.closeAllConnections();
      await new Promise(resolve => proxy.close(resolve));
    }
  });

  test('OPENAI_ORG_ID and OPENAI_PROJECT_ID go with the request, as the openai SDK sends them', async () => {
    const result = await nib([sse.text('ok')], ['-p', 'hi'], {OPENAI_ORG_ID: 'org-1', OPENAI_PROJECT_ID: 'proj-1'});
    expect(result.code).toBe(0);
    expect(server!.requests[0]!.headers).toMatchObject({'openai-organization': 'org-1', 'openai-project': 'proj-1'});
  });

  test('the prompt can come on stdin', async () => {
    server = await startOpenAiServer([sse.text('pong')]);
    const result = await runNib(sandbox, ['-p', '--base-url', server.url, '--model', 'm'], {stdin: 'ping\n'});
    results.push(result);
    expect(result).toMatchObject({code: 0, stdout: 'pong'});
    expect(server.requests[0]!.body.messages.at(-1)).toMatchObject({role: 'user', content: 'ping\n'});
  });

  test('401: exit 1, one clear line, exactly one request', async () => {
    const result = await nib([sse.unauthorized()], ['-p', 'hi']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/401/);
    expect(lines[0]).toMatch(/OPENAI_API_KEY/);
    expect(server!.requests).toHaveLength(1);
  });

  test('401 with a --provider preset names that preset\'s key variable', async () => {
    const result = await nib([sse.unauthorized()], ['-p', 'hi', '--provider', 'groq'], {GROQ_API_KEY: 'groq-test-key-123456'});
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(/401 Unauthorized from .*: check GROQ_API_KEY$/);
    expect(server!.requests[0]!.headers.authorization).toBe('Bearer groq-test-key-123456');
  });

  test('429 with Retry-After: 1, then success', async () => {
    const result = await nib([sse.rateLimited(1), sse.text('made it')], ['-p', 'hi']);
    expect(result).toMatchObject({code: 0, stdout: 'made it'});
    expect(server!.requests).toHaveLength(2);
    expect(result.stderr).toMatch(/retry/i);
  });

  test('500, 500, then success', async () => {
    const result = await nib([sse.serverError(), sse.serverError(), sse.text('third time')], ['-p', 'hi']);
    expect(result).toMatchObject({code: 0, stdout: 'third time'});
    expect(server!.requests).toHaveLength(3);
  });

  test('a user name and password in the base URL reach neither stderr nor the session log', async () => {
    server = await startOpenAiServer([sse.serverError(), sse.text('fine')]);
    const withCredentials = server.url.replace('http://', 'http://me:url-password-4821@');
    const result = await runNib(sandbox, ['--base-url', withCredentials, '--model', 'test-model', '-p', 'hi']);
    results.push(result);
    expect(result).toMatchObject({code: 0, stdout: 'fine'});
    expect(result.stderr).toContain('http://[redacted]@127.0.0.1');
    expect(result.stderr).not.toContain('url-password-4821');
    expect(await filesContaining(sandbox.root, 'url-password-4821')).toEqual([]);
  });

  test('a connection reset mid-stream: exit 1 within 5 s, the partial text printed', async () => {
    const answer = 'The first half arrives. The second half never does.';
    const full = sse.text(answer);
    const result = await nib([sse.reset(full, Math.floor(sse.bodyOf(full).length / 2))], ['-p', 'hi']);
    expect(result.code).toBe(1);
    expect(result.ms).toBeLessThan(5000);
    expect(result.stdout.length).toBeGreaterThan(4);
    expect(result.stdout.length).toBeLessThan(answer.length);
    expect(answer.startsWith(result.stdout)).toBe(true);
    expect(result.stderr.trim()).not.toBe('');
  });

  test('a stalled stream with a 1 s idle timeout: exit 1 within 5 s, partial text printed', async () => {
    const answer = 'Some words, then silence for ever and ever.';
    const full = sse.text(answer);
    const result = await nib([sse.stall(full, Math.floor(sse.bodyOf(full).length / 2))], ['-p', 'hi'], {
      NIB_IDLE_TIMEOUT_MS: '1000',
    });
    expect(result.code).toBe(1);
    expect(result.ms).toBeLessThan(5000);
    expect(result.stdout.length).toBeGreaterThan(4);
    expect(answer.startsWith(result.stdout)).toBe(true);
    expect(result.stderr).toMatch(/idle|silent|timed? ?out|no data/i);
  });

  test('invalid JSON arguments and an unknown tool: the model is told, the run finishes', async () => {
    const result = await nib(
      [
        sse.toolCalls([
          {name: 'read', arguments: '{"path": "pack', id: 'bad_json'},
          {name: 'teleport', arguments: {to: 'mars'}, id: 'no_tool'},
        ]),
        sse.text('I will try again differently.'),
      ],
      ['-p', 'go'],
    );
    expect(result).toMatchObject({code: 0, stdout: 'I will try again differently.'});
    const tools = server!.requests[1]!.body.messages.filter(m => m.role === 'tool');
    expect(tools).toMatchObject([
      {tool_call_id: 'bad_json', content: expect.stringMatching(/not valid JSON/)},
      {tool_call_id: 'no_tool', content: expect.stringMatching(/no tool named "teleport"/)},
    ]);
  });

  test('60 tool rounds: stops at the cap of 50 with the reason on stderr', async () => {
    await writeFile(join(sandbox.workspace, 'a.txt'), 'a\n');
    await writeFile(join(sandbox.workspace, 'b.txt'), 'b\n');
    // Alternating files: the same call again and again would be stopped earlier, as a loop.
    const path = (index: number) => (index % 2 === 0 ? 'a.txt' : 'b.txt');
    const result = await nib((_request, index) => (index < 60 ? sse.toolCall('read', {path: path(index)}) : sse.text('done')), [
      '-p',
      'loop',
    ]);
    expect(result.code).toBe(1);
    expect(server!.requests).toHaveLength(50);
    expect(result.stderr).toMatch(/Stopped after 50 model rounds/);
  });

  test('--output-format json: one event per line with the documented fields', async () => {
    await writeFile(join(sandbox.workspace, 'a.txt'), 'alpha\n');
    const result = await nib(
      [sse.toolCall('read', {path: 'a.txt'}, {id: 'r1'}), sse.text('done')],
      ['-p', 'go', '--output-format', 'json'],
    );
    expect(result.code).toBe(0);
    const events = jsonEvents(result.stdout);
    expect(events.find(e => e.type === 'tool-call')).toEqual({
      type: 'tool-call',
      id: 'r1',
      name: 'read',
      arguments: '{"path":"a.txt"}',
    });
    expect(events.find(e => e.type === 'tool-result')).toMatchObject({id: 'r1', is_error: false, content: expect.stringContaining('alpha')});
    expect(events.filter(e => e.type === 'text-delta').map(e => e.text).join('')).toBe('done');
    expect(events.at(-1)).toEqual({type: 'turn-end', reason: 'completed'});
  });

  test('SIGINT during a tool round: exit 130, and every tool call is answered', async () => {
    server = await startOpenAiServer([
      sse.toolCalls([
        {name: 'bash', arguments: {command: 'sleep 31.17'}, id: 'sleepy'},
        {name: 'read', arguments: {path: 'x'}, id: 'never_ran'},
      ]),
    ]);
    const running = startNib(sandbox, [
      '-p',
      'sleep',
      '--base-url',
      server.url,
      '--model',
      'm',
      '--approval-mode',
      'yolo',
      '--output-format',
      'json',
    ]);
    await running.waitForStdout(out => out.includes('"type":"tool-start"'));
    running.child.kill('SIGINT');
    const result = await running.done;
    results.push(result);
    expect(result.code).toBe(130);
    expect(result.ms).toBeLessThan(25_000);
    const events = jsonEvents(result.stdout);
    const calls = events.filter(e => e.type === 'tool-call').map(e => e.id);
    const answered = events.filter(e => e.type === 'tool-result').map(e => e.id);
    expect(calls).toEqual(['sleepy', 'never_ran']);
    expect(answered).toEqual(calls);
    expect(events.at(-1)).toEqual({type: 'turn-end', reason: 'aborted'});
    // The command's process group went with it.
    const ps = execFileSync('ps', ['-eo', 'args'], {encoding: 'utf8'});
    expect(ps.split('\n').filter(line => line.includes('sleep 31.17'))).toEqual([]);
  });

  test('SIGTERM during a command: the command is stopped too, every call answered, exit 143', async () => {
    // The command runs in its own process group; nib dying on the spot used to leave it running.
    server = await startOpenAiServer([sse.toolCall('bash', {command: 'sleep 32.41'}, {id: 'sleepy'})]);
    const running = startNib(sandbox, ['-p', 'sleep', '--base-url', server.url, '--model', 'm', '--approval-mode', 'yolo', '--output-format', 'json']);
    await running.waitForStdout(out => out.includes('"type":"tool-start"'));
    running.child.kill('SIGTERM');
    const result = await running.done;
    results.push(result);
    expect(result.code).toBe(143);
    const events = jsonEvents(result.stdout);
    expect(events.filter(e => e.type === 'tool-result').map(e => e.id)).toEqual(['sleepy']);
    expect(events.at(-1)).toEqual({type: 'turn-end', reason: 'aborted'});
    const ps = execFileSync('ps', ['-eo', 'args'], {encoding: 'utf8'});
    expect(ps.split('\n').filter(line => line.includes('sleep 32.41'))).toEqual([]);
  });

  test('a command that prints the API key: the key is masked before the model, events or logs see it', async () => {
    // The key is not in a command's environment, but without the sandbox's pid namespace nib's
    // own is one /proc read away.
    const result = await nib(
      [sse.toolCall('bash', {command: "tr '\\0' '\\n' < /proc/$PPID/environ | grep OPENAI_API_KEY"}, {id: 'env'}), sse.text('done')],
      ['-p', 'go', '--approval-mode', 'yolo', '--sandbox', 'off', '--output-format', 'json'],
    );
    expect(result.code).toBe(0);
    const tool = server!.requests[1]!.body.messages.at(-1)!;
    expect(tool.content).toMatch(/OPENAI_API_KEY=\[redacted[:\]]/);
    expect(JSON.stringify(server!.requests[1]!.body)).not.toContain(TEST_API_KEY);
  });

  test('a reader that stops early (nib -p … | head -1) ends the run quietly with exit 0', async () => {
    server = await startOpenAiServer([sse.slow(sse.text(`first line\n${'more words '.repeat(400)}`), 5)]);
    const running = startNib(sandbox, ['-p', 'talk', '--base-url', server.url, '--model', 'm']);
    await running.waitForStdout(out => out.includes('\n'));
    running.child.stdout!.destroy();
    const result = await running.done;
    results.push(result);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });

  test('config problems: one line naming the fix, exit 1, no request', async () => {
    server = await startOpenAiServer([]);
    const noKey = await runNib(sandbox, ['-p', 'hi', '--model', 'm', '--base-url', 'https://api.example.com/v1'], {
      env: {OPENAI_API_KEY: ''},
    });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/OPENAI_API_KEY/);
    expect(noKey.stderr.trim().split('\n')).toHaveLength(1);

    // No model, and a local server that is not there: the error says the list was asked for
    // (and masks the URL's password).
    const down = await runNib(sandbox, ['-p', 'hi', '--base-url', 'http://me:url-password-4821@127.0.0.1:9/v1'], {env: {NIB_MODEL: ''}});
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^nib: no model configured: pass --model NAME.* \(asked, http:\/\/\[redacted\]@127\.0\.0\.1:9\/v1 gave no list of its models\)\n$/);

    // No model, and a server that refuses the key (401 to every route): the key is named first.
    const refusing = createServer((_req, res) => {
      res.writeHead(401, {'content-type': 'application/json'});
      res.end('{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}');
    });
    await new Promise<void>(resolve => refusing.listen(0, '127.0.0.1', resolve));
    const port = (refusing.address() as AddressInfo).port;
    const wrongKey = await runNib(sandbox, ['-p', 'hi', '--base-url', `http://127.0.0.1:${port}/v1`], {env: {NIB_MODEL: '', OPENAI_API_KEY: 'sk-wrong'}});
    const noKey401 = await runNib(sandbox, ['-p', 'hi', '--base-url', `http://127.0.0.1:${port}/v1`], {env: {NIB_MODEL: '', OPENAI_API_KEY: ''}});
    await new Promise(resolve => refusing.close(resolve));
    expect(noKey401.stderr).toMatch(/^nib: http:\/\/127\.0\.0\.1:\d+\/v1 wants a key to list its models \(401 Unauthorized\): set OPENAI_API_KEY; then no model configured/);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^nib: http:\/\/127\.0\.0\.1:\d+\/v1 refused the key when asked its models \(401 Unauthorized\): check OPENAI_API_KEY; then no model configured: pass --model NAME/);
    expect(wrongKey.stderr).not.toContain('sk-wrong');
    results.push(wrongKey);

    const badFlag = await runNib(sandbox, ['-p', 'hi', '--approval-mode', 'maybe']);
    expect(badFlag.code).toBe(1);
    expect(badFlag.stderr).toMatch(/--approval-mode/);
    results.push(noKey, down, badFlag);
    expect(server.requests).toHaveLength(0);
  });

  test('a bad config file: one line naming the file and the field, exit 1', async () => {
    const dir = join(sandbox.home, '.config', 'nib');
    await mkdir(dir, {recursive: true});
    await writeFile(join(dir, 'config.json'), '{"model": "m", "approvalMode": "sometimes"}');
    const result = await runNib(sandbox, ['-p', 'hi']);
    results.push(result);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(join(dir, 'config.json'));
    expect(result.stderr).toContain('approvalMode');
    // The bundle keeps zod's English messages only (scripts/build-plugins.mjs): they must still be there.
    expect(result.stderr).toContain('Invalid option: expected one of "ask"');
  });

  test('--cwd sets the workspace', async () => {
    await mkdir(join(sandbox.workspace, 'sub'));
    await writeFile(join(sandbox.workspace, 'sub', 'inner.txt'), 'inside sub\n');
    const result = await nib([sse.toolCall('read', {path: 'inner.txt'}), sse.text('ok')], ['-p', 'go', '--cwd', 'sub']);
    expect(result.code).toBe(0);
    expect(server!.requests[1]!.body.messages.at(-1)!.content).toContain('inside sub');
    expect(server!.requests[0]!.body.messages[0]!.content).toContain(join(sandbox.workspace, 'sub'));
  });

  test('--version and --help', async () => {
    const version = await runNib(sandbox, ['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = await runNib(sandbox, ['--help']);
    expect(help.code).toBe(0);
    for (const word of ['--model', '--base-url', '--approval-mode', '--cwd', '--print', '--output-format', 'read']) {
      expect(help.stdout).toContain(word);
    }
    results.push(version, help);
  });
});

/** Against a server that answers like `persona` (its window, its refusals, its model list). */
async function local(persona: Persona, script: Script, args: string[]): Promise<NibResult> {
  server = await startOpenAiServer(script, {persona});
  const result = await runNib(sandbox, ['--base-url', server.url, ...args]);
  results.push(result);
  return result;
}

const paste = 'explain this log:\n' + Array.from({length: 400}, (_, i) => `2026-11-25T01:${String(i % 60).padStart(2, '0')}:00 worker-${i % 7} processed batch ${i} with status ok`).join('\n');

describe('nib -p against a local server with a small window', () => {
  test('print mode: a prompt over the window is refused before sending; the sizes and the fix are the first line on stderr, exit 1', async () => {
    const result = await local({kind: 'llama.cpp', window: 4096}, [sse.text('never asked')], ['--model', 'm', '-p', paste]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const first = result.stderr.split('\n')[0]!;
    expect(first).toMatch(/^nib: Not sent: this prompt is about [\d.]+k tokens; the server's window is 4,096, and the system prompt and tools take [\d.]+k of it/);
    expect(first).toMatch(/--ctx-size/);
    expect(result.stderr).not.toMatch(/Nothing to compact/);
    expect(server!.requests).toHaveLength(0);
  });

  test('print mode, a server whose list says nothing of the window (OpenAI bytes): its refusal sets it, the prompt is taken back and the sizes come first', async () => {
    const result = await local({kind: 'openai', window: 2048, models: ['m']}, [sse.text('never')], ['--model', 'm', '-p', paste]);
    expect(result.code).toBe(1);
    expect(server!.requests).toHaveLength(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^nib: Refused by the server, and taken back: this prompt is about [\d.]+k tokens; the server's window is 2,048, .*Send less, or use a model with a larger window\.$/);
    expect(result.stderr).not.toMatch(/Nothing to compact/);
  });

  test('a prompt nib thought would fit but the server refused is taken back: the next prompt of the session works', async () => {
    // Over 80% of the window by nib's estimate, over all of it by the server's count (a tokenizer
    // that splits this text finely): the turn first tries to compact (nothing to compact yet),
    // then sends, and is refused.
    const big = 'abcdefg '.repeat(870);
    const first = await local({kind: 'llama.cpp', window: 4096, charsPerToken: 2.5}, [sse.text('hello again')], ['--model', 'm', '-p', big]);
    expect(first.code).toBe(1);
    expect(server!.requests).toHaveLength(1);
    expect(first.stderr.split('\n')[0]).toMatch(/^nib: Refused by the server, and taken back: this prompt is about [\d.]+k tokens; the server's window is 4,096/);
    const next = await runNib(sandbox, ['--base-url', server!.url, '--model', 'm', '--continue', '-p', 'say hi']);
    results.push(next);
    expect(next.stderr).not.toMatch(/400 Bad Request|Not sent|refused/);
    expect(next.code).toBe(0);
    expect(next.stdout).toBe('hello again');
    const sent = server!.requests[1]!.body.messages.filter(message => message.role === 'user');
    expect(sent.map(message => message.content)).toEqual(['say hi']);
  });

  test('JSON: a compaction is announced as it starts; with nothing to compact, the request follows and the refusal is the error', async () => {
    const big = 'abcdefg '.repeat(870);
    const result = await local({kind: 'llama.cpp', window: 4096, charsPerToken: 2.5}, [sse.text('never')], ['--model', 'm', '--output-format', 'json', '-p', big]);
    expect(result.code).toBe(1);
    const events = result.stdout.trim().split('\n').map(line => JSON.parse(line) as {type: string; reason?: string; code?: string});
    expect(events.map(event => event.type)).toEqual(['compaction-start', 'error', 'turn-end']);
    expect(events[0]).toEqual({type: 'compaction-start', reason: 'auto'});
    expect(events[1]).toMatchObject({code: 'prompt-too-long'});
  });

  test('no model configured: the server\'s only model is used and named', async () => {
    const result = await local({kind: 'llama.cpp', window: 16384, models: ['qwen2.5-coder-7b.gguf']}, [sse.text('hello')], ['-p', 'say hi']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('hello');
    expect(server!.requests[0]!.body.model).toBe('qwen2.5-coder-7b.gguf');
    expect(result.stderr).toContain("using the server's only model, qwen2.5-coder-7b.gguf");
  });

  test('no model configured and several served: print mode names them in its error', async () => {
    const result = await local({kind: 'ollama', window: 8192, models: ['llama3.2:3b', 'qwen3:8b']}, [sse.text('never')], ['-p', 'say hi']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no model configured, and http:\/\/127\.0\.0\.1:\d+\/v1 serves 2: llama3\.2:3b, qwen3:8b\. Pass --model NAME/);
    expect(server!.requests).toHaveLength(0);
  });

  test('--context-window overrides the server', async () => {
    const result = await local({kind: 'llama.cpp', window: 4096}, [sse.text('fits')], ['--model', 'm', '--context-window', '1000', '-p', 'x'.repeat(2400)]);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')[0]).toMatch(/the configured window is 1,000.*raise contextWindow/);
  });
});

describe('nib -p: @files and custom commands', () => {
  const lastUserSent = () => String(server!.requests[0]!.body.messages.at(-1)!.content);

  test('nib -p with @path attaches the file; a missing path stays as typed', async () => {
    await writeFile(join(sandbox.workspace, 'notes.md'), '# Notes\nship it\n');
    const result = await nib([sse.text('Done.')], ['-p', 'summarise @notes.md and @missing.md']);
    expect(result).toMatchObject({code: 0, stdout: 'Done.'});
    expect(lastUserSent()).toMatch(/^summarise @notes\.md and @missing\.md\n/);
    expect(lastUserSent()).toContain('<file path="notes.md">\n     1\t# Notes\n     2\tship it\n</file>');
    expect(lastUserSent()).not.toContain('missing.md">');
    // The person sees what went to the model with the prompt.
    expect(result.stderr).toContain('nib: Attached for the model: notes.md\n');
    await mkdir(join(sandbox.workspace, 'docs'));
    await writeFile(join(sandbox.workspace, 'docs', 'a.md'), 'a\n');
    await writeFile(join(sandbox.workspace, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
    await server!.close();
    const more = await nib([sse.text('Done.')], ['-p', 'look at @docs and @logo.png']);
    expect(more.stderr).toContain('nib: Attached for the model: docs/ (listing), logo.png (unreadable: logo.png looks like a binary file)\n');
  });

  test('nib -p with @.env under deny read(**/.env): the file stays out, the person and the model are told why', async () => {
    await mkdir(join(sandbox.home, '.config', 'nib'), {recursive: true});
    await writeFile(join(sandbox.home, '.config', 'nib', 'config.json'), JSON.stringify({permissions: {deny: ['read(**/.env)']}}));
    await writeFile(join(sandbox.workspace, '.env'), 'SECRET_TOKEN=hunter2\n');
    await writeFile(join(sandbox.workspace, 'notes.md'), 'ship it\n');
    const result = await nib([sse.text('Done.')], ['-p', 'check @.env and @notes.md']);
    expect(result).toMatchObject({code: 0, stdout: 'Done.'});
    expect(result.stderr).toContain('nib: @.env was not attached: the deny rule read(**/.env) forbids reading it');
    expect(JSON.stringify(server!.requests[0]!.body)).not.toContain('hunter2');
    expect(lastUserSent()).toMatch(/^check @\.env and @notes\.md\n/);
    expect(lastUserSent()).toContain('     1\tship it');
    expect(lastUserSent()).toContain('@.env was not attached: the deny rule read(**/.env) forbids reading it.');
  });

  test('nib -p "/review src/a.ts" sends the custom command with front matter read, $1 and @ filled in', async () => {
    await mkdir(join(sandbox.workspace, '.nib', 'commands'), {recursive: true});
    await mkdir(join(sandbox.workspace, 'src'));
    await writeFile(join(sandbox.workspace, '.nib', 'commands', 'review.md'), '---\ndescription: review a file\nallowed-tools: Bash(git diff:*)\n---\nReview @$1 for $2.\n');
    await writeFile(join(sandbox.workspace, 'src', 'a.ts'), 'export const a = 1;\n');
    const result = await nib([sse.text('Done.')], ['-p', '/review src/a.ts bugs']);
    expect(result).toMatchObject({code: 0, stdout: 'Done.'});
    expect(result.stderr).not.toMatch(/not loaded/);
    expect(lastUserSent()).toMatch(/^Review @src\/a\.ts for bugs\.\n/);
    expect(lastUserSent()).toContain('     1\texport const a = 1;');
  });

  test('nib -p /undo: a command of the interactive session is refused with a clear line, not sent to the model', async () => {
    // Even with a custom command of that name (the TUI does not use it either).
    await mkdir(join(sandbox.workspace, '.nib', 'commands'), {recursive: true});
    await writeFile(join(sandbox.workspace, '.nib', 'commands', 'undo.md'), 'pretend to undo\n');
    const result = await nib([sse.text('never')], ['-p', '/undo']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('nib: /undo is a command of the interactive session (run nib without -p); print mode sends prompts and custom commands only\n');
    expect(server!.requests).toHaveLength(0);
  });

  test('nib -p with a /name that is no command: refused with the commands there are, nothing sent; a path is a prompt', async () => {
    await mkdir(join(sandbox.workspace, '.nib', 'commands'), {recursive: true});
    await writeFile(join(sandbox.workspace, '.nib', 'commands', 'review.md'), 'Review $ARGUMENTS\n');
    const typo = await nib([sse.text('never')], ['-p', '/reveiw src/a.ts']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/^nib: unknown command \/reveiw: print mode runs custom commands .*, here \/review; nothing was sent\n$/);
    // Claude Code's namespaced form, which the TUI refuses too.
    const namespaced = await nib([sse.text('never')], ['-p', '/frontend:component Button']);
    expect(namespaced.code).toBe(1);
    expect(namespaced.stderr).toMatch(/^nib: unknown command \/frontend:component: /);
    expect(server!.requests).toHaveLength(0);
    await server!.close();
    const path = await nib([sse.text('looked')], ['-p', '/src/app.ts is broken']);
    expect(path.code).toBe(0);
    expect(lastUserSent()).toContain('/src/app.ts is broken');
    // A source file piped in, which starts with a doc comment, is a prompt too.
    await server!.close();
    const code = await nib([sse.text('explained')], ['-p', '/** A doc comment */\nexport const x = 1;']);
    expect(code.code).toBe(0);
    expect(lastUserSent()).toContain('/** A doc comment */');
  });

  test('a custom command whose body starts with ! goes to the model as text and runs nothing', async () => {
    await mkdir(join(sandbox.workspace, '.nib', 'commands'), {recursive: true});
    const marker = join(sandbox.workspace, 'pwned');
    await writeFile(join(sandbox.workspace, '.nib', 'commands', 'review.md'), `!touch ${marker}\n`);
    const result = await nib([sse.text('Done.')], ['-p', '/review src']);
    expect(result).toMatchObject({code: 0, stdout: 'Done.'});
    expect(existsSync(marker)).toBe(false);
    expect(lastUserSent()).toContain(`!touch ${marker}`);
  });

  test('a custom command file that cannot be read is named on stderr, and its /name is refused, not sent as text', async () => {
    await mkdir(join(sandbox.workspace, '.nib', 'commands'), {recursive: true});
    await writeFile(join(sandbox.workspace, '.nib', 'commands', 'broken.md'), '---\ndescription: [unclosed\nnot a key line\n---\nbody\n');
    const result = await nib([sse.text('Done.')], ['-p', '/broken now']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/broken\.md: the front matter is not valid YAML .*; not loaded\n.*unknown command \/broken: .*nothing was sent/s);
    expect(server!.requests).toHaveLength(0);
  });
});
