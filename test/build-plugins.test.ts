import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {build, type Plugin} from 'esbuild';
import {afterAll, beforeAll, expect, test} from 'vitest';

// The build changes how string-width (Ink's line measure) spots emoji, to spare the first frame
// the compilation of the RGI_Emoji pattern (scripts/build-plugins.mjs). Widths must not change.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
type StringWidth = (text: string) => number;
let dir: string;
let original: StringWidth;
let patched: StringWidth;

/** string-width bundled as the build bundles it, with the given plugins, then imported. */
async function bundled(name: string, plugins: Plugin[]): Promise<StringWidth> {
  const result = await build({
    stdin: {contents: "export {default} from 'string-width';", resolveDir: ROOT, loader: 'js'},
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    plugins,
    logLevel: 'silent',
  });
  const file = join(dir, `${name}.mjs`);
  await writeFile(file, result.outputFiles[0]!.text);
  return ((await import(pathToFileURL(file).href)) as {default: StringWidth}).default;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nib-width-'));
  // @ts-expect-error: a plain .mjs script without types
  const {stringWidthEmojiCheck} = (await import('../scripts/build-plugins.mjs')) as {stringWidthEmojiCheck: () => Plugin};
  original = await bundled('original', []);
  patched = await bundled('patched', [stringWidthEmojiCheck()]);
});
afterAll(() => rm(dir, {recursive: true, force: true}));

const codePoints = function* (from: number, to: number) {
  for (let point = from; point <= to; point++) if (point < 0xd800 || point > 0xdfff) yield String.fromCodePoint(point);
};

// The premise of the build's check. The width comparison below cannot stand in for it: every
// one-code-point RGI emoji is also East Asian Wide, so it measures two columns by either path.
test('a grapheme of one code point is an RGI emoji only if it has Emoji_Presentation', () => {
  const rgi = new RegExp('^\\p{RGI_Emoji}$', 'v');
  const presentation = /^\p{Emoji_Presentation}$/u;
  let emoji = 0;
  for (const text of codePoints(0, 0x10ffff)) {
    if (!rgi.test(text)) continue;
    emoji++;
    if (!presentation.test(text)) expect.fail(`U+${text.codePointAt(0)!.toString(16)} is RGI_Emoji without Emoji_Presentation`);
  }
  expect(emoji).toBeGreaterThan(1000);
});

test('string-width measures every code point and sequence as the package does', () => {
  const texts = [
    ...codePoints(0, 0x33ff),
    ...codePoints(0xfe00, 0xffff),
    ...codePoints(0x1f000, 0x1faff),
    '© ®', '©️ ®️ ↔️ ⬆️ ▶️', '#️⃣ 1️⃣ *️⃣', '🇫🇷 🇯🇵', '🇫', '👍🏽 👩‍👩‍👧‍👦 🏳️‍🌈 🏴󠁧󠁢󠁳󠁣󠁴󠁿',
    'e\u0301 क्षि 한국어 각 日本語 ｶﾞ', '› ask · ↑12.4k ↓830 (10% of 62,000 ctx) · ~/src/app', '\u001b[1mbold 🎉\u001b[22m',
  ];
  const differing = texts.filter(text => patched(text) !== original(text));
  expect(differing).toEqual([]);
  // Not vacuous: the package counts emoji as two columns.
  expect(patched('👍🏽 ok')).toBe(5);
});
