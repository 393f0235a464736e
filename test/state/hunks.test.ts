import {describe, expect, test} from 'vitest';
import {splitLines} from '../../source/core/line-diff.js';
import {
  applyHunks,
  computeChange,
  decideHunks,
  describeHunk,
  describeRejected,
  hunkHeader,
} from '../../source/state/hunks.js';

const numbered = (count: number, eol = '\n') =>
  Array.from({length: count}, (_, index) => `line ${index + 1}${eol}`).join('');

/** Two changes far enough apart to be two hunks: line 3 edited, line 40 removed. */
function twoHunks(eol = '\n') {
  const oldText = numbered(50, eol);
  const newText = oldText.replace(`line 3${eol}`, `line three${eol}`).replace(`line 40${eol}`, '');
  return {oldText, newText, change: computeChange(oldText, newText)};
}

describe('splitLines', () => {
  test('keeps terminators so joining is lossless', () => {
    for (const text of ['', 'a', 'a\n', 'a\r\nb', 'a\n\nb\r\n', '\n\n']) {
      expect(splitLines(text).join('')).toBe(text);
    }
    expect(splitLines('a\r\nb')).toEqual(['a\r\n', 'b']);
  });
});

describe('computeChange', () => {
  test('no change, no hunks', () => {
    const change = computeChange('a\nb\n', 'a\nb\n');
    expect(change.hunks).toEqual([]);
    expect(change.added + change.removed).toBe(0);
  });

  test('distant changes are separate hunks with unified headers and line numbers', () => {
    const {change} = twoHunks();
    expect(change.hunks).toHaveLength(2);
    expect(change.added).toBe(1);
    expect(change.removed).toBe(2);
    expect(change.hunks.map(hunkHeader)).toEqual(['@@ -1,6 +1,6 @@', '@@ -37,7 +37,6 @@']);
    const second = change.hunks[1]!;
    expect(second.lines.find((line) => line.kind === 'removed')).toMatchObject({text: 'line 40\n', oldNo: 40, newNo: null});
    expect(second.lines.at(-1)).toMatchObject({kind: 'context', oldNo: 43, newNo: 42});
  });

  test('nearby changes share a hunk', () => {
    const oldText = numbered(20);
    const newText = oldText.replace('line 5\n', 'five\n').replace('line 10\n', 'ten\n');
    expect(computeChange(oldText, newText).hunks).toHaveLength(1);
  });

  test('a new file is one hunk of added lines', () => {
    const change = computeChange(null, 'a\nb\n');
    expect(change.hunks).toHaveLength(1);
    expect(change.hunks[0]!.lines.map((line) => [line.kind, line.newNo])).toEqual([
      ['added', 1],
      ['added', 2],
    ]);
    expect(hunkHeader(change.hunks[0]!)).toBe('@@ -0,0 +1,2 @@');
  });

  test('a line-ending-only change is a change', () => {
    expect(computeChange('a\r\nb\r\n', 'a\nb\r\n').hunks).toHaveLength(1);
  });
});

describe('applyHunks', () => {
  test('all hunks give the new text, none give the old, byte for byte', () => {
    for (const eol of ['\n', '\r\n']) {
      const {oldText, newText, change} = twoHunks(eol);
      expect(applyHunks(change, new Set([0, 1]))).toBe(newText);
      expect(applyHunks(change, new Set())).toBe(oldText);
    }
  });

  test('only the accepted hunk is applied, CRLF preserved', () => {
    const {oldText, change} = twoHunks('\r\n');
    const first = applyHunks(change, new Set([0]));
    expect(first).toBe(oldText.replace('line 3\r\n', 'line three\r\n'));
    const second = applyHunks(change, new Set([1]));
    expect(second).toBe(oldText.replace('line 40\r\n', ''));
  });

  test('no trailing newline and insertions at both ends survive', () => {
    const oldText = numbered(30) + 'last';
    const newText = 'top\n' + oldText + ' line\nappended';
    const change = computeChange(oldText, newText);
    expect(change.hunks).toHaveLength(2);
    expect(applyHunks(change, new Set([0]))).toBe('top\n' + oldText);
    expect(applyHunks(change, new Set([1]))).toBe(oldText + ' line\nappended');
  });

  test('random edits: every subset rebuilds consistently', () => {
    const base = numbered(60).split('\n');
    const edited = base.map((line, index) => (index % 17 === 4 ? `${line} changed` : line));
    edited.splice(30, 0, 'inserted');
    const oldText = base.join('\n');
    const newText = edited.join('\n');
    const change = computeChange(oldText, newText);
    const all = new Set(change.hunks.map((hunk) => hunk.index));
    expect(applyHunks(change, all)).toBe(newText);
    for (const skip of all) {
      const accepted = new Set([...all].filter((index) => index !== skip));
      const rebuilt = applyHunks(change, accepted);
      // Applying the skipped hunk afterwards reaches the full new text: hunks are independent.
      expect(applyHunks(computeChange(rebuilt, newText), new Set([0]))).toBe(newText);
      expect(computeChange(rebuilt, newText).hunks).toHaveLength(1);
    }
  });
});

describe('telling the model', () => {
  test('describeHunk names the original lines', () => {
    const {change} = twoHunks();
    expect(describeHunk(change.hunks[1]!, 2)).toBe('hunk 2 of 2 (lines 37-43)');
  });

  test('describeRejected lists the rejected hunk with its diff', () => {
    const {change} = twoHunks();
    const note = describeRejected(change, new Set([0]));
    expect(note).toContain('applied 1 of 2 hunks');
    expect(note).toContain('Rejected (not written): hunk 2 of 2 (lines 37-43)');
    expect(note).toContain('-line 40');
    expect(note).not.toContain('line three');
  });

  test('decideHunks: all is yes, none is no, some is an edit with the rebuilt text', () => {
    const {oldText, change} = twoHunks();
    expect(decideHunks(change, new Set([0, 1]))).toEqual({kind: 'yes'});
    expect(decideHunks(change, new Set())).toMatchObject({kind: 'no'});
    const decision = decideHunks(change, new Set([1]));
    expect(decision).toMatchObject({kind: 'edit', text: oldText.replace('line 40\n', '')});
    expect(decision.kind === 'edit' && decision.note).toContain('hunk 1 of 2');
  });
});

describe('a change with thousands of edits (a replace_all over a large file)', () => {
  const lines = Array.from({length: 50_000}, (_, index) => `const value${index} = oldName(${index});\n`);
  const before = lines.join('');
  const all = (change: ReturnType<typeof computeChange>) => new Set(change.hunks.map(hunk => hunk.index));

  test('edits in place are paired line by line, past the bound on the full diff', () => {
    const after = lines.map((line, index) => (index % 25 === 0 ? line.replace('oldName', 'newName') : line)).join('');
    const change = computeChange(before, after);
    expect([change.hunks.length, change.added, change.removed]).toEqual([2000, 2000, 2000]);
    expect(change.hunks[1]!.lines.map(line => line.kind)).toEqual(['context', 'context', 'context', 'removed', 'added', 'context', 'context', 'context']);
    expect(change.hunks[1]!.oldStart).toBe(23);
    expect(applyHunks(change, all(change))).toBe(after);
    expect(applyHunks(change, new Set())).toBe(before);
  });

  test('with lines added as well, the part between the common start and end is removed and added whole', () => {
    const after = lines.flatMap((line, index) => (index % 25 === 0 ? [line.replace('oldName', 'newName'), '// added\n'] : [line])).join('');
    const change = computeChange(before, after);
    expect(applyHunks(change, all(change))).toBe(after);
    expect(applyHunks(change, new Set())).toBe(before);
  });
});
