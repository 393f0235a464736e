import stringWidth from 'string-width';
import {expect, test} from 'vitest';
import {textWidth, truncate} from '../../source/components/columns.js';

test('widths are Ink\'s (string-width), so a row cut here is the row Ink draws', () => {
  for (const text of ['plain ascii', '✅ done', '⚡ fast', '漢字 kanji', '👨‍👩‍👧 family', '👍🏽 ok', 'é and e\u0301']) {
    expect(textWidth(text), text).toBe(stringWidth(text));
  }
});

test('truncate cuts between characters, never inside one, and marks the cut', () => {
  expect(truncate('short', 10)).toBe('short');
  expect(truncate('👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧', 5)).toBe('👨‍👩‍👧👨‍👩‍👧…');
  expect(stringWidth(truncate('漢字漢字漢字', 6))).toBeLessThanOrEqual(6);
  expect(truncate('漢字漢字漢字', 6)).toBe('漢字…');
});
