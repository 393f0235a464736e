import {describe, expect, test} from 'vitest';
import {Collector, type FileHits} from '../../source/tools/grep-collect.js';

function hits(count: number): FileHits {
  const lines = new Map<number, {text: string; isMatch: boolean}>();
  for (let line = 1; line <= count; line += 1) lines.set(line, {text: `match ${line}`, isMatch: true});
  return {lines, matches: count};
}

describe('grep result collector', () => {
  test('keeps the first max matching lines in path order whatever order files arrive in', () => {
    const names = Array.from({length: 300}, (_, i) => `dir${String(i).padStart(3, '0')}/f.ts`);
    // Reversed: every new file sorts before all kept ones, so pruning happens again and again.
    const orders = [[...names].reverse(), [...names.filter((_, i) => i % 2 === 1), ...names.filter((_, i) => i % 2 === 0)]];
    for (const order of orders) {
      const collector = new Collector(10);
      for (const name of order) collector.add(name, hits(3));
      const result = collector.render(name => name, 500, {pattern: 'match'}, '.');
      const shown = result.content.split('\n').filter(line => line.includes(': match'));
      expect(shown).toEqual([
        'dir000/f.ts:1: match 1', 'dir000/f.ts:2: match 2', 'dir000/f.ts:3: match 3',
        'dir001/f.ts:1: match 1', 'dir001/f.ts:2: match 2', 'dir001/f.ts:3: match 3',
        'dir002/f.ts:1: match 1', 'dir002/f.ts:2: match 2', 'dir002/f.ts:3: match 3',
        'dir003/f.ts:1: match 1',
      ]);
      expect(result.content.split('\n').at(-1)).toBe(
        '[10 of 900 matching lines shown (in 4 of 300 files); 890 left out. Narrow the pattern, path or glob, or raise max_results.]',
      );
      expect(result.detail).toEqual({summary: '900 matches', matches: 900});
    }
  });

  test('the whole result stays under the byte limit, whatever max_results and context ask for', () => {
    // 1,000 matches of 500-character lines with 20 lines of context each came to 20 MB.
    const lines = new Map<number, {text: string; isMatch: boolean}>();
    for (let line = 1; line <= 41_000; line += 1) lines.set(line, {text: 'y'.repeat(500), isMatch: line % 41 === 21});
    const collector = new Collector(1000);
    collector.add('big.txt', {lines, matches: 1000});
    const result = collector.render(name => name, 500, {pattern: 'y', context: 20}, '.');
    expect(Buffer.byteLength(result.content)).toBeLessThan(260 * 1024);
    expect(result.content.split('\n').at(-1)).toMatch(
      /^\[\d+ of 1000 matching lines shown \(in 1 of 1 file\) \(stopped at the 256 KiB output limit\); \d+ left out\. Narrow the pattern, path or glob, or use less context\.\]$/,
    );
  });
});
