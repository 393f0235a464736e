import {describe, expect, test} from 'vitest';
import {createToolRegistry, createReadLedger, defaultTools, nestingDepth, parseArgs, readTool} from '../../source/tools/index.js';

describe('tool registry', () => {
  test('definitions carry JSON Schema generated from zod, without $schema', () => {
    const registry = createToolRegistry();
    const [read] = registry.definitions({mode: 'ask'}).filter(d => d.function.name === 'read');
    expect(read?.type).toBe('function');
    expect(read?.function.parameters).toMatchObject({
      type: 'object',
      properties: {path: {type: 'string'}, offset: {type: 'integer'}, limit: {type: 'integer'}},
      required: ['path'],
    });
    expect(read?.function.parameters).not.toHaveProperty('$schema');
  });

  test('plan mode offers read tools only', () => {
    const registry = createToolRegistry();
    const plan = registry.definitions({mode: 'plan'}).map(d => d.function.name);
    const all = registry.definitions({mode: 'ask'}).map(d => d.function.name);
    expect(all).toEqual(['read', 'grep', 'list', 'write', 'edit', 'bash']);
    expect(plan).toEqual(['read', 'grep', 'list']);
    expect(defaultTools.map(tool => [tool.name, tool.kind])).toEqual([
      ['read', 'read'],
      ['grep', 'read'],
      ['list', 'read'],
      ['write', 'write'],
      ['edit', 'write'],
      ['bash', 'exec'],
    ]);
  });

  test('argument names are the contract', () => {
    const properties = Object.fromEntries(
      createToolRegistry()
        .definitions({mode: 'ask'})
        .map(d => [d.function.name, Object.keys((d.function.parameters as {properties: object}).properties)]),
    );
    expect(properties).toEqual({
      read: ['path', 'offset', 'limit'],
      grep: ['pattern', 'path', 'glob', 'ignore_case', 'context', 'max_results'],
      list: ['path', 'glob', 'depth'],
      write: ['path', 'content'],
      edit: ['path', 'old_string', 'new_string', 'replace_all'],
      bash: ['command', 'timeout', 'description'],
    });
  });

  test('get finds tools by name', () => {
    const registry = createToolRegistry([readTool]);
    expect(registry.get('read')).toBe(readTool);
    expect(registry.get('nope')).toBeUndefined();
  });

  test('parseArgs explains invalid JSON and shows the expected shape', () => {
    const result = parseArgs(readTool, '{"path": "a.txt"');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatch(/^The arguments for read are not valid JSON \(.+\)\. Send one JSON object, for example \{"path":"\.\.\."\}\.$/);
  });

  test('parseArgs names each bad field and what was expected', () => {
    const missing = parseArgs(readTool, '{"offset": 0}');
    expect(missing).toEqual({
      ok: false,
      error: [
        'Invalid arguments for read:',
        '- path: required, expected string, but it is missing.',
        '- offset: Too small: expected number to be >0.',
        'Fix these and call read again.',
      ].join('\n'),
    });
    const wrongType = parseArgs(readTool, '{"path": 42}');
    expect(wrongType.ok === false && wrongType.error).toContain('- path: expected string, got number 42.');
    const notObject = parseArgs(readTool, '["a"]');
    expect(notObject.ok === false && notObject.error).toContain('must be a JSON object');
  });

  test('parseArgs accepts valid arguments and treats "" as {}', () => {
    expect(parseArgs(readTool, '{"path":"a","offset":2}')).toEqual({ok: true, value: {path: 'a', offset: 2}});
    const empty = parseArgs(readTool, '');
    expect(empty.ok === false && empty.error).toContain('path: required');
  });

  test('parseArgs refuses nesting past the limit before any recursive walk, whatever the shape', () => {
    const arrays = `{"path": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    const objects = `{"path": ${'{"x":'.repeat(50_000)}1${'}'.repeat(50_000)}}`;
    for (const raw of [arrays, objects]) {
      const result = parseArgs(readTool, raw);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error).toContain('nested more than 64 levels deep');
    }
    // Brackets inside strings are text, not nesting.
    expect(parseArgs(readTool, JSON.stringify({path: '['.repeat(500)}))).toMatchObject({ok: true});
    expect(nestingDepth('{"a": "\\"}', 64)).toBe(1);
    expect(nestingDepth('{"a": [[{"b": "]]]"}]]}', 64)).toBe(4);
  });

  test('each session has its own read tracker', () => {
    const a = createReadLedger();
    const b = createReadLedger();
    a.set('/x', {size: 1, mtimeMs: 1, hash: 'h'});
    expect(b.size).toBe(0);
  });
});
