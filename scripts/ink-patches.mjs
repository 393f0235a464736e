// The build's changes to Ink and the packages it draws with (scripts/build-plugins.mjs has the rest).
import {patchSource, sameCopiesOnce} from './build-plugins.mjs';

/**
 * nib's changes to how Ink draws and reads keys (Ink, its layout engine, its line measure), each
 * below. nib's bundle has them, and so has the bench's Ink floor (bench/tui.mjs), which stands for
 * the Ink that nib ships; nib's own frame writer (inkFrameLog) is nib's, not Ink's, and is not here.
 */
export function inkPatches() {
  return [inkInputInCommit(), inkPasteInCommit(), inkOutputCaches(), inkTextWidthCache(), yogaWithoutFetch(), stringWidthEmojiCheck(), sameCopiesOnce(['signal-exit', 'ansi-styles']), signalExitWithoutAssert()];
}

/**
 * Ink and restore-cursor (which Ink hides the cursor with) each bring a copy of signal-exit 3.0.7,
 * and wrap-ansi and ansi-tokenize each one of ansi-styles 6.2.3, which builds its tables at load:
 * one copy of each now (sameCopiesOnce). signal-exit 3 keeps its state on `process`, so its two
 * copies shared it anyway; and it loaded Node's `assert` for one argument check, 2.2 ms of CPU at
 * every start of the TUI for a module nothing else loads, so the check is written out.
 */
export function signalExitWithoutAssert() {
  return patchSource('signal-exit-without-assert', {
    file: /[\\/]signal-exit[\\/]index\.js$/,
    applies: text => text.includes("require('assert')"),
    replacements: [
      ["var assert = require('assert')", "var assert = {equal: function (actual, expected, message) { if (actual != expected) throw new TypeError(message) }}"],
    ],
  });
}

/**
 * yoga-layout (Ink's layout engine) carries its WebAssembly as a base64 data: URL and decodes it
 * with fetch() whenever fetch exists. Node's fetch is undici, loaded on first use: ~20 ms of CPU
 * before the TUI's first frame, for a module the session loads after that frame anyway. Decoded
 * with Buffer instead, after one turn of the event loop (as the fetch gave one), so a key typed
 * meanwhile is drawn by the early prompt line at once. bench/tui.mjs 1, 15 runs against the
 * build before: the app's first frame 188 → 164 ms, input ready 89 → 67 ms.
 */
export function yogaWithoutFetch() {
  return patchSource('yoga-without-fetch', {
    file: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/,
    replacements: [
      [
        'function ya(){return w||"function"!=typeof fetch?',
        'function ya(){if(!w&&ua(H))return new Promise(resolve=>setImmediate(()=>resolve(Buffer.from(H.slice(37),"base64"))));' +
          'return w||"function"!=typeof fetch?',
      ],
    ],
  });
}

/**
 * string-width (Ink measures every line with it) tests each grapheme of a line that is not plain
 * ASCII against `^\p{RGI_Emoji}$`. V8 compiles that pattern on its first use: ~15 ms of CPU and
 * ~3 MB, paid at the first frame, whose prompt and status lines have a › and a ·. A grapheme of one
 * code point is an RGI emoji only if it has Emoji_Presentation (test/ink-patches.test.ts checks
 * every code point), a pattern that compiles in 0.1 ms; longer graphemes still meet the full one.
 * bench/tui.mjs 1, three runs of 15-21 against the build before: the first frame 6-18 ms sooner, an
 * idle session's peak RSS 1.5-3.6 MB lower.
 *
 * Making the pattern costs too: esbuild writes a `v`-flag literal as `new RegExp(…, "v")`, which V8
 * parses when the module loads (the code cache cannot keep it), and RGI_Emoji's thousands of
 * sequences took 12-13 ms of CPU at every start of the TUI. So it is made on the first grapheme
 * that needs it: most sessions never draw one.
 */
export function stringWidthEmojiCheck() {
  return patchSource('string-width-emoji-check', {
    // Older copies (marked-terminal's tables bring string-width 4) have no such test.
    file: /[\\/]node_modules[\\/]string-width[\\/]index\.js$/,
    applies: text => text.includes('RGI_Emoji'),
    replacements: [
      [
        'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;',
        'let rgiEmojiPattern;\n' +
          "const rgiEmojiRegex = {test: text => (rgiEmojiPattern ??= new RegExp('^\\\\p{RGI_Emoji}$', 'v')).test(text)};\n" +
          'const emojiPresentationRegex = /^\\p{Emoji_Presentation}$/u;',
      ],
      [
        'if (rgiEmojiRegex.test(segment) || isDoubleWidthNonRgiEmojiSequence(segment)) {',
        'if ((segment.length > (segment.codePointAt(0) > 0xFFFF ? 2 : 1) || emojiPresentationRegex.test(segment)) && rgiEmojiRegex.test(segment) ' +
          '|| isDoubleWidthNonRgiEmojiSequence(segment)) {',
      ],
    ],
  });
}

/**
 * Ink's frame renderer with its line caches kept from one frame to the next. Every frame Ink
 * splits each line it draws into styled cells (tokenize the ANSI codes, measure each character)
 * and caches that, but in a new cache per frame, so lines that did not change (all of the open
 * block but its last line, the prompt, the status and the hints) were split again every frame:
 * a third of Ink's drawing time while an answer streams. One cache now serves all frames, in
 * two generations of at most CACHE_WEIGHT characters of keys each (an entry used again moves to
 * the newer one): about 2 MB when full. Ink never changes a cached array or cell in place (it
 * copies them to cut or blank them), which test/ink-patches.test.ts checks on those paths.
 *
 * The same holds for the blank cells a frame starts from: Ink made a new one, with a new styles
 * array, for every column of every row, and a frame of <Static> output is as tall as what moved
 * into it. At full speed a whole answer can move at once: a 20,000-token answer's last frames
 * made ~1,600 rows of them (bench/tui.mjs 2), ~15 MB alive at the same time, which V8 promoted
 * to the old generation. All blanks are now one frozen cell (its sameness also spares the row's
 * trailing blanks the work of turning into text that is then trimmed away).
 */
export function inkOutputCaches() {
  const CACHE_WEIGHT = 8192;
  return patchSource('ink-output-caches', {
    file: /[\\/]ink[\\/]build[\\/]output\.js$/,
    replacements: [
      [
        'class OutputCaches {\n    widths = new Map();\n    blockWidths = new Map();\n    styledChars = new Map();',
        [
          'const nibIgnorable = /^\\p{Default_Ignorable_Code_Point}+$/u;',
          'class NibCacheGenerations {',
          '    current = new Map();',
          '    previous = new Map();',
          '    weight = 0;',
          '    get(key) {',
          '        const value = this.current.get(key);',
          '        if (value !== undefined) return value;',
          '        const old = this.previous.get(key);',
          '        if (old !== undefined) this.set(key, old);',
          '        return old;',
          '    }',
          '    set(key, value) {',
          '        this.current.set(key, value);',
          '        this.weight += key.length;',
          `        if (this.weight > ${CACHE_WEIGHT}) {`,
          '            this.previous = this.current;',
          '            this.current = new Map();',
          '            this.weight = 0;',
          '        }',
          '    }',
          '}',
          'class OutputCaches {',
          '    widths = new NibCacheGenerations();',
          '    blockWidths = new NibCacheGenerations();',
          '    styledChars = new NibCacheGenerations();',
          '    lines = new NibCacheGenerations();',
          '    getLines(text) {',
          '        let cached = this.lines.get(text);',
          '        if (cached === undefined) {',
          '            const characterLines = [[]];',
          '            for (const character of this.getStyledChars(text)) {',
          "                if (character.value === '\\n') characterLines.push([]);",
          '                else characterLines.at(-1).push(character);',
          '            }',
          '            cached = characterLines.map(line => styledCharsToString(line));',
          '            this.lines.set(text, cached);',
          '        }',
          '        return cached;',
          '    }',
        ].join('\n'),
      ],
      // The lines of a text, styled, are kept too (the caller makes new arrays from them).
      [
        [
          '        const characterLines = [[]];',
          '        for (const character of this.caches.getStyledChars(text)) {',
          "            if (character.value === '\\n') {",
          '                characterLines.push([]);',
          '            }',
          '            else {',
          '                characterLines.at(-1).push(character);',
          '            }',
          '        }',
          '        let lines = characterLines.map(line => styledCharsToString(line));',
        ].join('\n'),
        '        let lines = this.caches.getLines(text);',
      ],
      ['    caches = new OutputCaches();', '    caches = nibOutputCaches ??= new OutputCaches();'],
      ['export default class Output {', 'let nibOutputCaches;\nexport default class Output {'],
      [
        "let nibOutputCaches;",
        "let nibOutputCaches;\nconst nibBlankCell = Object.freeze({type: 'char', value: ' ', fullWidth: false, styles: Object.freeze([])});",
      ],
      [
        [
          '            const row = [];',
          '            for (let x = 0; x < this.width; x++) {',
          '                row.push({',
          "                    type: 'char',",
          "                    value: ' ',",
          '                    fullWidth: false,',
          '                    styles: [],',
          '                });',
          '            }',
          '            output.push(row);',
        ].join('\n'),
        // As many cells as the loop made: none for a width below one, a whole one for a fraction.
        '            output.push(new Array(Math.max(0, Math.ceil(this.width) || 0)).fill(nibBlankCell));',
      ],
      // Blank cells at the end of a row add nothing the trimEnd() below keeps.
      [
        '            const lineWithoutEmptyItems = line.filter(item => item !== undefined);',
        [
          '            let end = line.length;',
          '            while (end > 0 && (line[end - 1] === nibBlankCell || line[end - 1] === undefined)) end--;',
          '            const lineWithoutEmptyItems = line.slice(0, end).filter(item => item !== undefined);',
        ].join('\n'),
      ],
      // A pattern made once, not once per character of every line split.
      [
        '.filter(character => !/^\\p{Default_Ignorable_Code_Point}+$/u.test(character.value));',
        '.filter(character => !nibIgnorable.test(character.value));',
      ],
    ],
  });
}

/**
 * Ink measures each text node's widest line twice a frame: for the layout, through a cache that
 * lasts across frames (measure-text.js), and again, uncached, before it draws the text. The second
 * measure goes through the same cache: the largest string-width cost left while an answer streams.
 */
export function inkTextWidthCache() {
  return patchSource('ink-text-width-cache', {
    file: /[\\/]ink[\\/]build[\\/]render-node-to-output\.js$/,
    replacements: [
      ["import widestLine from 'widest-line';", "import measureText from './measure-text.js';"],
      ['const currentWidth = widestLine(text);', 'const currentWidth = measureText(text).width;'],
    ],
  });
}

/**
 * Ink's useInput and usePaste attach their listeners (and ask for raw mode) in passive effects,
 * which React runs a turn of the event loop after a commit that no key caused. A key or a paste
 * read in between went to the component that had the keyboard before: typed as an approval
 * question appeared, it landed in the prompt line behind it. As layout effects the listeners
 * change hands within the commit itself, before anything more can be read.
 */
export function inkInputInCommit() {
  return effectsInCommit('ink-input-in-commit', 'use-input');
}

/** The same for pastes, so a paste and a key read at the same moment go to the same place. */
export function inkPasteInCommit() {
  return effectsInCommit('ink-paste-in-commit', 'use-paste');
}

function effectsInCommit(name, hook) {
  return patchSource(name, {
    file: new RegExp(`[\\\\/]ink[\\\\/]build[\\\\/]hooks[\\\\/]${hook}\\.js$`),
    replacements: [["import { useEffect, useEffectEvent } from 'react';", "import { useLayoutEffect as useEffect, useEffectEvent } from 'react';"]],
  });
}
