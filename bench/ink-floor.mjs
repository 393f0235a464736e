// Not a bench of its own: the floor for tui.mjs parts 2 and 3. A bare Ink app with nib's layout
// (finished paragraphs in <Static>, the open paragraph live, three lines of prompt, status and
// hints under it) streams the answer in argv[2] as tui.mjs sends it to nib: a thousandth of it
// every 20 ms (part 3), or with argv[3] = 'full' four characters at a time as fast as the event
// loop turns (part 2); or, given the server's URL, as the raw openai SDK receives it. Drawn at most
// every 80 ms, incremental rendering. It starts on the first key and exits after the last
// paragraph. tui.mjs bundles it as nib is bundled (production React).
import {readFileSync} from 'node:fs';
import v8 from 'node:v8';
import {Box, render, Static, Text, useApp, useInput} from 'ink';
import {createElement as h, useEffect, useState} from 'react';

// nib holds V8's young generation at its starting size (source/idle-gc.ts); the floor does the
// same, or its peak RSS would count V8's growth that nib does not have.
v8.setFlagsFromString('--semi-space-growth-factor=1');

// argv[2]: a file with the answer, or the loopback server's URL: then the raw openai SDK receives the
// answer as nib would, and the two floors are measured together in one process.
const SOURCE = process.argv[2];
const FROM_SERVER = /^https?:/.test(SOURCE);
let answer = FROM_SERVER ? '' : readFileSync(SOURCE, 'utf8');
const FRAME_MS = 80;
const FULL = process.argv[3] === 'full';
const STEP = FULL ? 4 : Math.ceil(answer.length / 1000); // read from a file only

/** Calls `onText` with the answer so far, and resolves when all of it is in. */
async function receive(onText) {
  if (!FROM_SERVER) return;
  const {default: OpenAI} = await import('openai');
  const client = new OpenAI({baseURL: SOURCE, apiKey: 'bench', maxRetries: 0});
  const stream = await client.chat.completions.create({model: 'bench-model', messages: [{role: 'user', content: 'write a long answer'}], stream: true});
  for await (const chunk of stream) {
    const text = chunk.choices[0]?.delta?.content;
    if (text) onText((answer += text));
  }
}

function Floor() {
  const {exit} = useApp();
  const [started, setStarted] = useState(false);
  const [shown, setShown] = useState(0);
  const [complete, setComplete] = useState(false);
  useInput(() => setStarted(true));
  useEffect(() => {
    if (!started) return;
    let sent = 0;
    let done = false;
    let immediate;
    let tick;
    if (FROM_SERVER) {
      receive(text => (sent = text.length)).then(
        () => (done = true),
        error => {
          process.stderr.write(`ink-floor: ${error.message}\n`);
          process.exit(1);
        },
      );
    } else {
      const step = () => {
        sent = Math.min(answer.length, sent + STEP);
        done = sent >= answer.length;
        if (FULL && !done) immediate = setImmediate(step);
      };
      tick = FULL ? (step(), undefined) : setInterval(step, 20);
    }
    const frame = setInterval(() => {
      setShown(sent);
      if (done) {
        setComplete(true);
        clearInterval(tick);
        clearInterval(frame);
        setTimeout(exit, 200);
      }
    }, FRAME_MS);
    return () => {
      clearInterval(tick);
      clearImmediate(immediate);
      clearInterval(frame);
    };
  }, [started, exit]);
  // Once all of it is in, the last paragraph goes to <Static> too, as nib's does when the turn ends.
  const text = answer.slice(0, shown) + (complete ? '\n\n' : '');
  const cut = text.lastIndexOf('\n\n');
  const finished = cut < 0 ? [] : text.slice(0, cut).split('\n\n');
  const open = cut < 0 ? text : text.slice(cut + 2);
  return h(
    Box,
    {flexDirection: 'column'},
    h(Static, {items: finished}, (paragraph, index) => h(Box, {key: index, marginBottom: 1}, h(Text, null, paragraph))),
    open ? h(Text, null, open.replace(/\n$/, '')) : null,
    h(Text, {color: 'cyan'}, started ? '› working… type to queue a message' : '› ask nib to do something'),
    h(Text, {dimColor: true}, 'bench-model · ask · ↑0 ↓0 (0% ctx) · ~/project'),
    h(Text, {dimColor: true}, 'esc interrupt · type to queue · shift+tab mode'),
  );
}

render(h(Floor), {exitOnCtrlC: true, maxFps: 30, incrementalRendering: true, patchConsole: false});
