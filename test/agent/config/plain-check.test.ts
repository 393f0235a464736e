import {readFile} from 'node:fs/promises';
import {describe, expect, test} from 'vitest';
import {ConfigFileSchema} from '../../../source/agent/config/config-file.js';
import {CONFIG_FIELDS} from '../../../source/agent/config/config-fields.js';
import {plainlyValid} from '../../../source/agent/config/plain-check.js';

// What the check without zod passes must be what zod passes, unchanged: a config it lets through
// is used as written. Each field is tried with values of every kind, near every edge.
const strings = ['', 'a', 'gpt-4.1', ' padded ', 'ask', 'auto-edit', 'plan', 'on', 'auto', 'ollama', 'http://127.0.0.1:11434/v1', 'https://api.openai.com/v1',
  ' http://x/v1', 'http://x/v1 ', 'http://exa\tmple.com', 'http://x\n', 'not a url', 'ftp://h/x', 'mailto:a@b', 'http:/x', 'http://', '//x', 'é', '日本', '\u0000'];
const numbers = [0, -0, 1, -1, 0.5, 1.5, 1, 2, 8192, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), 1e21, Number.MAX_VALUE, JSON.parse('1e400') as number, 0.999999, 1.000001];
const scalars: unknown[] = [...strings, ...numbers, true, false, null];
const composites: unknown[] = [
  [], ['a'], [''], ['a', 1], {}, {a: 1}, {a: 0}, {a: 'x'}, {'': 5}, {mode: 'on'}, {mode: 'off', network: true}, {mode: 'on', hide: ['~/.ssh']},
  {mode: 'on', hide: ['']}, {mode: 'sometimes'}, {network: 'yes'}, {mode: 'on', extra: 1}, {s: {command: 'npx', args: ['-y', 'x']}},
  {s: {command: ''}}, {s: {url: 'http://h/mcp', headers: {a: 'b'}}}, {s: {command: 'x', env: {A: 1}}}, {s: {command: 'x', whatever: [1]}},
  {s: 'x'}, {s: null}, {s: []}, {allow: ['Bash(npm test)']}, JSON.parse('{"__proto__": {"a": 1}}'),
];
const values = [...scalars, ...composites, ...scalars.map(value => [value]), ...scalars.map(value => ({key: value}))];

function zodSays(json: unknown) {
  const parsed = ConfigFileSchema.safeParse(json);
  return parsed.success ? {ok: true, data: parsed.data} : {ok: false};
}

describe('checking a config file without zod', () => {
  test('the checked-in config-fields.ts is what the zod schema produces', async () => {
    // @ts-expect-error: a plain .mjs script without types
    const {OUTPUT, generate} = await import('../../../scripts/config-schema.mjs');
    expect(await readFile(OUTPUT, 'utf8'), 'run node scripts/config-schema.mjs').toBe(await generate());
  });

  test('it names every field of the schema, and leaves the ones with refinements to zod', () => {
    expect(Object.keys(CONFIG_FIELDS).sort()).toEqual(Object.keys(ConfigFileSchema.shape).sort());
    // Permission rules and hook matchers are checked by code (superRefine), which JSON Schema cannot say.
    expect(CONFIG_FIELDS['permissions']).toBeNull();
    expect(CONFIG_FIELDS['hooks']).toBeNull();
  });

  test('whatever it passes, zod passes too and hands back unchanged', () => {
    let passed = 0;
    for (const [field, schema] of Object.entries(CONFIG_FIELDS)) {
      if (!schema) continue;
      for (const value of values) {
        if (!plainlyValid(schema, value)) continue;
        passed++;
        expect(zodSays({[field]: value}), `${field}: ${JSON.stringify(value)}`).toEqual({ok: true, data: {[field]: value}});
      }
    }
    // It does pass things: a check that never says yes would make this test empty.
    expect(passed).toBeGreaterThan(40);
  });

  test('a usual config file passes without zod; odd values are left to zod', () => {
    const usual = {model: 'qwen3:8b', baseURL: 'http://127.0.0.1:11434/v1', approvalMode: 'auto-edit', contextWindow: 32768, contextWindows: {'llama3.1:8b': 8192}, autoCompact: 0.8, sandbox: 'on'};
    for (const [field, value] of Object.entries(usual)) expect(plainlyValid(CONFIG_FIELDS[field]!, value), field).toBe(true);
    const odd: Array<[string, unknown]> = [['model', ''], ['baseURL', ' http://h/v1'], ['baseURL', 'not a url'], ['maxRounds', 1.5], ['maxRounds', 0], ['autoCompact', true],
      ['autoCompact', 0], ['contextWindow', 2 ** 53], ['idleTimeoutMs', JSON.parse('1e400')], ['sandbox', {mode: 'on', extra: 1}], ['approvalMode', 'sometimes']];
    for (const [field, value] of odd) expect(plainlyValid(CONFIG_FIELDS[field]!, value), `${field}: ${String(value)}`).toBe(false);
  });
});
