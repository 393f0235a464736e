import {mkdtemp, mkdir, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {isLoopback} from '../../../source/core/hosts.js';
import {parseFlags, readinessProblem, resolveConfig, windowFor, type Flags} from '../../../source/agent/config/config.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'nib-config-'));
});
afterEach(async () => {
  await rm(home, {recursive: true, force: true});
});

function flags(argv: string[]): Flags {
  const parsed = parseFlags(argv);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

async function writeConfig(content: string): Promise<string> {
  const dir = join(home, 'xdg', 'nib');
  await mkdir(dir, {recursive: true});
  await writeFile(join(dir, 'config.json'), content);
  return join(dir, 'config.json');
}

const env = () => ({HOME: home, XDG_CONFIG_HOME: join(home, 'xdg')});

describe('parseFlags', () => {
  test('reads every flag and joins positionals into the prompt', () => {
    const value = flags([
      '-p', '--model', 'm', '--base-url', 'http://127.0.0.1:1/v1', '--approval-mode', 'yolo',
      '--cwd', 'sub', '--output-format', 'json', '--max-rounds', '7', 'read', 'the file',
    ]);
    expect(value).toMatchObject({
      print: true, model: 'm', baseURL: 'http://127.0.0.1:1/v1', approvalMode: 'yolo', cwd: 'sub',
      outputFormat: 'json', maxRounds: 7, prompt: 'read the file',
    });
  });

  test('--resume with and without an id; --continue and --demo', () => {
    expect(flags(['--resume']).resume).toBe(true);
    expect(flags(['--resume', '-p']).resume).toBe(true);
    expect(flags(['--resume', 'abc123']).resume).toBe('abc123');
    expect(flags(['--continue', '--demo'])).toMatchObject({continue: true, demo: true});
  });

  test('bad values are errors that say what is allowed', () => {
    const mode = parseFlags(['--approval-mode', 'sometimes']);
    expect(mode).toEqual({ok: false, error: expect.stringContaining('ask, auto-edit, yolo, plan')});
    expect(parseFlags(['--max-rounds', '0']).ok).toBe(false);
    expect(parseFlags(['--output-format', 'xml']).ok).toBe(false);
    expect(parseFlags(['--nope'])).toEqual({ok: false, error: expect.stringContaining('--nope')});
  });
});

describe('resolveConfig', () => {
  test('flags beat env, env beats the config file', async () => {
    await writeConfig(JSON.stringify({model: 'file-model', baseURL: 'http://127.0.0.1:9/v1', maxRounds: 3}));
    const fromFile = await resolveConfig({flags: flags([]), env: env(), cwd: home});
    expect(fromFile).toMatchObject({ok: true, value: {model: 'file-model', baseURL: 'http://127.0.0.1:9/v1', maxRounds: 3}});

    const fromEnv = await resolveConfig({
      flags: flags([]),
      env: {...env(), NIB_MODEL: 'env-model', OPENAI_BASE_URL: 'http://localhost:8/v1/', NIB_IDLE_TIMEOUT_MS: '1000'},
      cwd: home,
    });
    expect(fromEnv).toMatchObject({ok: true, value: {model: 'env-model', baseURL: 'http://localhost:8/v1', idleTimeoutMs: 1000}});

    const fromFlags = await resolveConfig({
      flags: flags(['--model', 'flag-model', '--cwd', 'x']),
      env: {...env(), NIB_MODEL: 'env-model'},
      cwd: home,
    });
    expect(fromFlags).toMatchObject({ok: true, value: {model: 'flag-model', cwd: join(home, 'x')}});
  });

  test('a base URL with a query is refused with the fix, its credentials masked', async () => {
    const result = await resolveConfig({flags: flags(['--base-url', 'https://me:pw@host/v1?key=abc']), env: env(), cwd: home});
    expect(result).toEqual({ok: false, error: 'the base URL "https://[redacted]@host/v1…" has a query or fragment; give it without (nib adds /chat/completions to its path; a key goes in OPENAI_API_KEY)'});
  });

  test('a base URL without http:// or https:// is refused at once, with the fix when it is host:port', async () => {
    const bare = await resolveConfig({flags: flags(['--base-url', 'localhost:18931/v1']), env: env(), cwd: home});
    expect(bare).toEqual({ok: false, error: 'the base URL "localhost:18931/v1" must start with http:// or https:// (e.g. http://localhost:18931/v1)'});
    const ftp = await resolveConfig({flags: flags([]), env: {...env(), OPENAI_BASE_URL: 'ftp://host/v1'}, cwd: home});
    expect(ftp).toEqual({ok: false, error: 'the base URL "ftp://host/v1" must start with http:// or https://'});
  });

  test('contextWindows: the entry of the model that runs, else contextWindow; --context-window for any model', async () => {
    await writeConfig(JSON.stringify({model: 'a', contextWindow: 16_384, contextWindows: {a: 8192}}));
    const file = await resolveConfig({flags: flags([]), env: env(), cwd: home});
    if (!file.ok) throw new Error(file.error);
    expect(windowFor(file.value.contextWindows, file.value.model)).toBe(8192);
    expect(windowFor(file.value.contextWindows, 'b')).toBe(16_384);
    expect(windowFor(file.value.contextWindows, 'toString')).toBe(16_384);
    const flagged = await resolveConfig({flags: flags(['--context-window', '4096']), env: env(), cwd: home});
    if (!flagged.ok) throw new Error(flagged.error);
    expect([windowFor(flagged.value.contextWindows, 'a'), windowFor(flagged.value.contextWindows, 'b')]).toEqual([4096, 4096]);
  });

  test('a bad config file names the path and the field', async () => {
    const path = await writeConfig(JSON.stringify({model: 'm', maxRounds: 'lots'}));
    const result = await resolveConfig({flags: flags([]), env: env(), cwd: home});
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toContain(path);
    expect(result.error).toContain('maxRounds');
  });

  test('an unknown field and broken JSON are named too', async () => {
    const path = await writeConfig('{"modle": "m"}');
    const typo = await resolveConfig({flags: flags([]), env: env(), cwd: home});
    expect(typo).toEqual({ok: false, error: expect.stringMatching(/config\.json: unknown field "modle"/)});
    await writeConfig('{"model": ');
    const broken = await resolveConfig({flags: flags([]), env: env(), cwd: home});
    expect(broken).toEqual({ok: false, error: expect.stringContaining(`${path}: not valid JSON`)});
  });

  test('broken JSON around an unquoted key does not quote the key back', async () => {
    const key = 'sk-unquoted-0123456789abcdef';
    const path = await writeConfig(`{"model": "m", "apiKey": ${key}}`);
    const result = await resolveConfig({flags: flags([]), env: env(), cwd: home});
    expect(result).toEqual({ok: false, error: `${path}: not valid JSON (Unexpected token 's')`});
  });

  test('falls back to ~/.config when XDG_CONFIG_HOME is unset', async () => {
    await mkdir(join(home, '.config', 'nib'), {recursive: true});
    await writeFile(join(home, '.config', 'nib', 'config.json'), '{"model": "home-model"}');
    const result = await resolveConfig({flags: flags([]), env: {HOME: home}, cwd: home});
    expect(result).toMatchObject({ok: true, value: {model: 'home-model'}});
  });
});

describe('readinessProblem', () => {
  test('a remote server without a key says how to set one; loopback needs none', async () => {
    const remote = await resolveConfig({flags: flags(['--model', 'm']), env: env(), cwd: home});
    if (!remote.ok) throw new Error(remote.error);
    expect(readinessProblem(remote.value)).toMatch(/OPENAI_API_KEY/);

    const local = await resolveConfig({flags: flags(['--model', 'm', '--base-url', 'http://127.0.0.1:11434/v1']), env: env(), cwd: home});
    if (!local.ok) throw new Error(local.error);
    expect(readinessProblem(local.value)).toBeUndefined();

    const noModel = await resolveConfig({flags: flags([]), env: {...env(), OPENAI_API_KEY: 'k'}, cwd: home});
    if (!noModel.ok) throw new Error(noModel.error);
    expect(readinessProblem(noModel.value)).toMatch(/--model/);
  });

  test('isLoopback', () => {
    expect(isLoopback('http://localhost:1234/v1')).toBe(true);
    expect(isLoopback('http://[::1]:8080/v1')).toBe(true);
    expect(isLoopback('http://127.0.0.2/v1')).toBe(true);
    expect(isLoopback('http://0.0.0.0:8000/v1')).toBe(true);
    expect(isLoopback('https://api.openai.com/v1')).toBe(false);
    expect(isLoopback('http://127.example.com/v1')).toBe(false);
    // The host as the window probe reads it too (core/hosts.ts): any case, a trailing dot, IPv4 written as IPv6.
    expect(isLoopback('http://LOCALHOST.:8080/v1')).toBe(true);
    expect(isLoopback('http://[::ffff:127.0.0.1]:8080/v1')).toBe(true);
    expect(isLoopback('http://[::ffff:10.0.0.1]:8080/v1')).toBe(false);
  });
});

describe('provider presets', () => {
  test('--provider sets the base URL and reads the key from its own variable only', async () => {
    const result = await resolveConfig({
      flags: flags(['--provider', 'openrouter', '--model', 'm']),
      env: {...env(), OPENROUTER_API_KEY: 'or-key-123456', OPENAI_API_KEY: 'openai-key-123456'},
      cwd: home,
    });
    expect(result).toMatchObject({ok: true, value: {provider: 'openrouter', baseURL: 'https://openrouter.ai/api/v1', apiKey: 'or-key-123456'}});

    // The OpenAI key must not be sent to another company's server.
    const missing = await resolveConfig({flags: flags(['--provider', 'groq', '--model', 'm']), env: {...env(), OPENAI_API_KEY: 'openai-key-123456'}, cwd: home});
    if (!missing.ok) throw new Error(missing.error);
    expect(missing.value.apiKey).toBeUndefined();
    expect(readinessProblem(missing.value)).toMatch(/set GROQ_API_KEY/);
  });

  test('local presets need no key; --base-url still wins over the preset', async () => {
    const ollama = await resolveConfig({flags: flags(['--provider', 'ollama', '--model', 'm']), env: env(), cwd: home});
    if (!ollama.ok) throw new Error(ollama.error);
    expect(ollama.value.baseURL).toBe('http://127.0.0.1:11434/v1');
    expect(readinessProblem(ollama.value)).toBeUndefined();

    const both = await resolveConfig({flags: flags(['--provider', 'lmstudio', '--base-url', 'http://127.0.0.1:9/v1']), env: env(), cwd: home});
    expect(both).toMatchObject({ok: true, value: {baseURL: 'http://127.0.0.1:9/v1'}});
  });

  test('provider in the config file; the flag beats OPENAI_BASE_URL, the file does not', async () => {
    await writeConfig(JSON.stringify({provider: 'gemini'}));
    const fromFile = await resolveConfig({flags: flags([]), env: {...env(), GEMINI_API_KEY: 'gem-key-123456'}, cwd: home});
    expect(fromFile).toMatchObject({ok: true, value: {baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai', apiKey: 'gem-key-123456', keyEnv: 'GEMINI_API_KEY'}});

    const envURL = {...env(), OPENAI_BASE_URL: 'http://127.0.0.1:7/v1'};
    expect(await resolveConfig({flags: flags([]), env: envURL, cwd: home})).toMatchObject({ok: true, value: {baseURL: 'http://127.0.0.1:7/v1'}});
    expect(await resolveConfig({flags: flags(['--provider', 'mistral']), env: envURL, cwd: home})).toMatchObject({
      ok: true,
      value: {baseURL: 'https://api.mistral.ai/v1'},
    });
  });

  test('an unknown provider lists the known ones, as a flag and in the file', async () => {
    expect(parseFlags(['--provider', 'openia'])).toEqual({ok: false, error: expect.stringMatching(/--provider must be one of openai, openrouter, .*mistral, not "openia"/)});
    await writeConfig(JSON.stringify({provider: 'openia'}));
    const result = await resolveConfig({flags: flags([]), env: env(), cwd: home});
    expect(result).toEqual({ok: false, error: expect.stringContaining('field "provider"')});
  });
});
