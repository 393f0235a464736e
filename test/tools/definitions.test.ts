import {readFile} from 'node:fs/promises';
import {describe, expect, test} from 'vitest';
import {createBuiltinRegistry} from '../../source/tools/builtin.js';
import {createToolRegistry, readTool} from '../../source/tools/index.js';

describe('built-in tool definitions', () => {
  test('the checked-in definitions.ts is what the zod schemas produce', async () => {
    // @ts-expect-error: a plain .mjs script without types
    const {OUTPUT, generate} = await import('../../scripts/tool-definitions.mjs');
    expect(await readFile(OUTPUT, 'utf8'), 'run node scripts/tool-definitions.mjs').toBe(await generate());
  });

  test('the lazy registry offers what the loaded one does, in every mode', () => {
    const lazy = createBuiltinRegistry();
    const loaded = createToolRegistry();
    for (const mode of ['plan', 'ask', 'auto-edit', 'yolo'] as const) {
      expect(lazy.definitions({mode})).toEqual(loaded.definitions({mode}));
    }
    expect(lazy.describe()).toEqual(loaded.describe());
  });

  test('tools are looked up only after load, and then parse arguments', async () => {
    const lazy = createBuiltinRegistry();
    expect(() => lazy.get('read')).toThrow(/before load\(\) finished/);
    await lazy.load();
    const read = lazy.get('read');
    expect(read?.name).toBe(readTool.name);
    expect(lazy.get('nope')).toBeUndefined();
    expect(lazy.parseArgs(read!, '{"path": "a.txt"}')).toEqual({ok: true, value: {path: 'a.txt'}});
    expect(lazy.parseArgs(read!, '{}').ok).toBe(false);
  });
});
