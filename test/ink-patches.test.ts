import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {build, type Plugin} from 'esbuild';
import {afterAll, beforeAll, expect, test} from 'vitest';

// The build changes packages it bundles (scripts/ink-patches.mjs): how string-width (Ink's line
// measure) spots emoji, to spare the first frame the compilation of the RGI_Emoji pattern, how
// long Ink keeps what it learnt about a line, and the blank cells a frame starts from. Widths and
// frames must not change.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
type StringWidth = (text: string) => number;
type Frames = (steps: readonly Step[]) => string[];
type Step = {readonly lines: readonly string[]; readonly columns: number; readonly shift: number; readonly printed: readonly string[]};
let dir: string;
let original: StringWidth;
let patched: StringWidth;
let originalFrames: Frames;
let patchedFrames: Frames;
type KeyRace = () => Promise<string[]>;
let originalRace: KeyRace;
let patchedRace: KeyRace;

// Ink imports its devtools bridge only with DEV=true; the build leaves that optional package out.
const noDevtools: Plugin = {
  name: 'no-devtools',
  setup(builder) {
    builder.onResolve({filter: /^react-devtools-core$/}, () => ({path: 'react-devtools-core', namespace: 'no-devtools'}));
    builder.onLoad({filter: /.*/, namespace: 'no-devtools'}, () => ({contents: 'export default {};', loader: 'js'}));
  },
};

/** `contents` bundled as the build bundles it, with the given plugins, then imported. */
async function bundled<T>(name: string, contents: string, plugins: Plugin[]): Promise<T> {
  const result = await build({
    stdin: {contents, resolveDir: ROOT, loader: 'js'},
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    define: {'process.env.NODE_ENV': '"production"'},
    banner: {js: "import {createRequire} from 'node:module'; const require = createRequire(import.meta.url);"},
    plugins: [...plugins, noDevtools],
    logLevel: 'silent',
  });
  const file = join(dir, `${name}.mjs`);
  await writeFile(file, result.outputFiles[0]!.text);
  return ((await import(pathToFileURL(file).href)) as {default: T}).default;
}

// Ink drawing one frame per step (debug mode writes each whole frame), as nib draws its live region:
// a line per <Text>, cut at the edge, some styled. Around it, the paths where Ink cuts and
// overwrites the cells it cached: items printed once through <Static>, a box that clips rows only,
// one that clips columns mid-character (its lines shifted left a little more each step), text
// drawn over wide characters, and a transform that depends on the row.
const inkFrames = `
import {createElement as h} from 'react';
import {Box, Static, Text, Transform, render} from 'ink';
import chalk from 'chalk';
export default function frames(steps) {
  chalk.level = 3;
  const written = [];
  const stdout = {columns: steps[0].columns, rows: 40, write: text => written.push(text), on() {}, off() {}};
  const view = ({lines, columns, shift, printed}) =>
    h(Box, {flexDirection: 'column', width: columns},
      h(Static, {items: printed}, (item, index) => h(Text, {key: index, color: 'green'}, item)),
      ...lines.map((line, index) => h(Text, {key: 't' + index, wrap: 'truncate-end', color: index % 3 === 1 ? 'cyan' : undefined, bold: index % 4 === 2, backgroundColor: index % 5 === 3 ? 'blue' : undefined}, line)),
      h(Box, {height: 2, overflowY: 'hidden', flexDirection: 'column'}, ...lines.slice(-3).map((line, index) => h(Text, {key: 'c' + index}, line))),
      h(Box, {width: 15, overflowX: 'hidden', flexDirection: 'column'},
        ...lines.slice(-2).map((line, index) => h(Box, {key: 'x' + index, marginLeft: -shift, width: 60}, h(Text, {wrap: 'truncate-end'}, line)))),
      h(Box, {height: 1},
        h(Text, {}, lines.at(-1)),
        h(Box, {position: 'absolute', marginLeft: 1 + (shift % 4)}, h(Text, {}, '本x'))),
      h(Transform, {transform: (line, row) => (row % 2 ? chalk.inverse(line) : line.toUpperCase())}, h(Text, {}, lines.slice(-2).join('\\n'))),
      h(Text, {dimColor: true}, '› ask · ↑12.4k ↓830 (10% of 62,000 ctx)'));
  const app = render(view(steps[0]), {stdout, debug: true, patchConsole: false, exitOnCtrlC: false});
  for (const step of steps.slice(1)) app.rerender(view(step));
  app.unmount();
  return written;
}`;

// A question appears, by an update that is not a key's (as a session event's is), over a prompt
// line that then gives up the keyboard; a key and a paste are read the moment the frame with the
// question is written, after React's commit but before the effects it runs a turn later. Which
// one gets them?
const keyRace = `
import {EventEmitter} from 'node:events';
import {createElement as h, useState} from 'react';
import {Box, Text, render, useInput, usePaste} from 'ink';
export default async function race() {
  const stdin = Object.assign(new EventEmitter(), {isTTY: true, setRawMode() {}, setEncoding() {}, ref() {}, unref() {}});
  const queued = [];
  stdin.read = () => queued.shift() ?? null;
  const got = [];
  let ask;
  let typed = false;
  const Prompt = ({active}) => {
    useInput(input => got.push('prompt ' + input), {isActive: active});
    usePaste(text => got.push('prompt paste ' + text), {isActive: active});
    return h(Text, {}, '> ');
  };
  const Question = () => {
    useInput(input => got.push('question ' + input));
    usePaste(text => got.push('question paste ' + text));
    return h(Text, {}, 'Start the server? (y/n)');
  };
  const App = () => {
    const [asking, setAsking] = useState(false);
    ask = () => setAsking(true);
    return h(Box, {flexDirection: 'column'}, asking ? h(Question) : null, h(Prompt, {active: !asking}));
  };
  const write = text => {
    if (text.includes('Start the server?') && !typed) {
      typed = true;
      queueMicrotask(() => {
        queued.push('n', '\\u001b[200~no\\u001b[201~');
        stdin.emit('readable');
      });
    }
    return true;
  };
  const app = render(h(App), {stdin, stdout: {columns: 80, rows: 24, write, on() {}, off() {}}, debug: true, patchConsole: false, exitOnCtrlC: false});
  await new Promise(resolve => setTimeout(resolve, 20));
  setTimeout(() => ask(), 0);
  // Until both have gone somewhere (a slow machine takes its time), at most 5 s.
  for (let waited = 0; got.length < 2 && waited < 5000; waited += 10) await new Promise(resolve => setTimeout(resolve, 10));
  app.unmount();
  return got;
}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nib-width-'));
  // @ts-expect-error: a plain .mjs script without types
  const plugins = (await import('../scripts/ink-patches.mjs')) as Record<'stringWidthEmojiCheck' | 'inkOutputCaches' | 'inkTextWidthCache' | 'inkInputInCommit' | 'inkPasteInCommit', () => Plugin>;
  const stringWidth = "export {default} from 'string-width';";
  original = await bundled('original', stringWidth, []);
  patched = await bundled('patched', stringWidth, [plugins.stringWidthEmojiCheck()]);
  originalFrames = await bundled('original-frames', inkFrames, []);
  patchedFrames = await bundled('patched-frames', inkFrames, [plugins.inkOutputCaches(), plugins.inkTextWidthCache()]);
  originalRace = await bundled('original-race', keyRace, []);
  patchedRace = await bundled('patched-race', keyRace, [plugins.inkInputInCommit(), plugins.inkPasteInCommit()]);
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

// Deterministic, but it draws 3,000 frames: the time limit leaves room for a slow machine.
test('Ink draws the same frames with its line caches kept across frames and its blank cells shared', {timeout: 120_000}, () => {
  // An answer streaming in, a word at a time, in lines that move up as it grows, with wide
  // characters, emoji, zero-width ones, styles and a link in it; then the screen narrows. Far more
  // text than the caches keep, so lines come back after they were dropped.
  const words = ['the', 'loop', '日本語', 'reads', '👍🏽', 'files', 'zero\u200bwidth', '\u001b[31mred\u001b[39m', 'and', 'streams', '\u001b]8;;https://example.com\u0007link\u001b]8;;\u0007'];
  const steps: Step[] = [];
  const printed: string[] = [];
  let text = '';
  for (let index = 0; index < 1500; index++) {
    text += words[index % words.length] + (index % 13 === 12 ? '\n' : ' ');
    if (index % 97 === 96) printed.push(text.split('\n').at(-2)!);
    steps.push({lines: text.split('\n').slice(-6), columns: index < 1200 ? 48 : 30, shift: index % 7, printed: [...printed]});
  }
  const expected = originalFrames(steps);
  expect(expected.length).toBeGreaterThanOrEqual(steps.length);
  expect(expected.join('').length).toBeGreaterThan(4 * 8192);
  const frames = patchedFrames(steps);
  const first = frames.findIndex((frame, index) => frame !== expected[index]);
  expect(first === -1 ? null : {frame: first, got: frames[first], expected: expected[first]}).toBeNull();
  expect(frames.length).toBe(expected.length);
});

test('a key or a paste read as a question appears goes to the question, not the prompt behind it', async () => {
  // Stock Ink hands the keyboard over a turn after the commit, so the race is real.
  expect(await originalRace()).toEqual(['prompt n', 'prompt paste no']);
  expect(await patchedRace()).toEqual(['question n', 'question paste no']);
});
