import {describe, expect, test} from 'vitest';
import {showInvisible, terminalSafe, toTerminalText} from '../../source/core/terminal-text.js';

describe('terminal text', () => {
  test('bidi controls and zero-width characters become visible markers', () => {
    // "Trojan Source": the override makes the end of the line read backwards on screen.
    expect(toTerminalText('cat notes\u202Etxt.sh')).toBe('cat notes<U+202E>txt.sh');
    expect(toTerminalText('\u2066a\u2069 b\u200Bc\u2060d\uFEFFe\u200Ff')).toBe('<U+2066>a<U+2069> b<U+200B>c<U+2060>d<U+FEFF>e<U+200F>f');
    for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      expect(toTerminalText(String.fromCharCode(code))).toBe(`<U+${code.toString(16).toUpperCase()}>`);
    }
  });

  test('prose keeps joiners (emoji sequences need them); what a person reviews marks them too', () => {
    const family = '\u{1F468}\u200D\u{1F469}';
    expect(toTerminalText(family)).toBe(family);
    expect(showInvisible(`rm -rf bu\u200Dild`)).toBe('rm -rf bu<U+200D>ild');
    expect(showInvisible('x\u200Cy\u202Ez')).toBe('x<U+200C>y<U+202E>z');
  });

  test('escape sequences are still dropped, and clean text comes back as the same string', () => {
    expect(toTerminalText('a\u001B]0;title\u0007b\u202E')).toBe('a]0;titleb<U+202E>');
    const event = {type: 'text-delta', text: 'plain'};
    expect(terminalSafe(event)).toBe(event);
    expect(terminalSafe({type: 'text-delta', text: 'a\u202Eb'})).toEqual({type: 'text-delta', text: 'a<U+202E>b'});
  });
});
