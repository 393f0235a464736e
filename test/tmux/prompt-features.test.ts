import {writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {describe, expect, test} from 'vitest';
import {sse} from '../support/sse.js';
import type {Terminal} from '../support/tmux.js';
import {IDLE, nibPerTest} from './nib-session.js';

// The prompt habits in a real terminal: what the loopback server received is the proof.

const start = nibPerTest();

/** The text of the last user message of request `index`. */
const lastUser = (messages: Array<Record<string, any>>) => String(messages.filter(message => message.role === 'user').at(-1)?.content ?? '');

/** /rewind to before the only prompt, everything chosen with Enter once each step takes keys. */
async function rewindFirstPrompt(term: Terminal): Promise<void> {
  await term.type('/rewind');
  await term.send('Enter');
  await term.waitForText('Rewind to before which prompt?');
  await term.send('Enter');
  await term.waitForText('enter rewind');
  await term.send('Enter');
}

describe('at the prompt, in a real terminal', () => {
  test('@ completes a path; the file goes to the model with the prompt', async () => {
    const session = await start({script: [sse.text('It lists two letters.')], files: {'docs/notes.txt': 'alpha\nbeta\n', 'other.md': 'x'}});
    const {term, server} = session;
    await term.waitForText(IDLE);
    await term.type('summarise @nots');
    await term.waitForText('› @docs/notes.txt');
    await term.send('Tab');
    await term.waitForText('summarise @docs/notes.txt');
    await term.send('Enter');
    await term.waitForText('It lists two letters.');
    const sent = lastUser(server.requests[0]!.body.messages);
    expect(sent).toMatch(/^summarise @docs\/notes\.txt/);
    expect(sent).toContain('<file path="docs/notes.txt">\n     1\talpha\n     2\tbeta\n</file>');
    // The transcript shows the prompt as typed, not the attachment.
    expect(await term.capture()).not.toContain('     1\talpha');
  });

  test('!command runs without the model; its output reaches the model with the next prompt', async () => {
    const session = await start({script: [sse.text('Saw it.')]});
    const {term, server} = session;
    await term.waitForText(IDLE);
    await term.type('!echo from-the-shell-$((6*7))');
    await term.waitForText('› !echo from-the-shell-$((6*7))');
    await term.send('Enter');
    await term.waitForText('from-the-shell-42');
    expect(server.requests).toHaveLength(0);
    await term.waitForText(IDLE);
    await term.type('what did it print?');
    await term.waitForText('› what did it print?');
    await term.send('Enter');
    await term.waitForText('Saw it.');
    const sent = lastUser(server.requests[0]!.body.messages);
    expect(sent).toContain('$ echo from-the-shell-$((6*7))\nfrom-the-shell-42');
    expect(sent.endsWith('what did it print?')).toBe(true);
  });

  test('a custom command is in the / list and sends its text with the arguments filled in', async () => {
    const session = await start({
      script: [sse.text('Reviewed.')],
      files: {
        '.nib/commands/review.md': '---\ndescription: review one file\nargument-hint: FILE\n---\nReview @$1 with care for $2.',
        'src/a.ts': 'export const a = 1;\n',
      },
    });
    const {term, server} = session;
    await term.waitForText(IDLE);
    await term.type('/rev');
    await term.waitForText('/review FILE  review one file');
    await term.send('Tab');
    // The completed line is a fresh input, whose key listener attaches a frame after it is drawn:
    // its first key is sent again until it shows.
    await term.waitFor(screen => screen.includes('› /review') && !screen.includes('review one file'));
    await term.press('s', async () => (await term.capture()).includes('› /review s'), screen => !screen.includes('› /review s'));
    await term.type('rc/a.ts errors');
    await term.waitForText('› /review src/a.ts errors');
    await term.send('Enter');
    await term.waitForText('Reviewed.');
    const sent = lastUser(server.requests[0]!.body.messages);
    expect(sent).toMatch(/^Review @src\/a\.ts with care for errors\./);
    expect(sent).toContain('     1\texport const a = 1;');
  });

  test('--provider picks the key from its own variable, and --base-url still wins', async () => {
    const session = await start({
      script: [sse.text('Hello from the preset.')],
      env: {OPENROUTER_API_KEY: 'or-test-key-123456'},
      shell: 'exec "$@" --provider openrouter --base-url "$OPENAI_BASE_URL" "say hello"',
    });
    await session.term.waitForText('Hello from the preset.');
    expect(session.server.requests[0]!.headers.authorization).toBe('Bearer or-test-key-123456');
  });

  test('/rewind goes back to before a prompt: the file it wrote is gone, the prompt is back in the box, the model forgets the turn', async () => {
    const session = await start({
      script: [sse.text('First answer.'), sse.toolCall('write', {path: 'made.txt', content: 'made\n'}), sse.text('Wrote it.'), sse.text('Fresh answer.')],
      args: ['--approval-mode', 'yolo'],
    });
    const {term, server} = session;
    await term.waitForText(IDLE);
    await term.type('first prompt');
    await term.send('Enter');
    await term.waitForText('First answer.');
    await term.type('make the file');
    await term.send('Enter');
    await term.waitForText('Wrote it.');
    await session.waitForFile('made.txt', text => text === 'made\n');
    await term.waitForText(IDLE);
    // Esc twice on an empty prompt opens the same list as /rewind.
    await term.send('Escape');
    await term.send('Escape');
    await term.waitForText('Rewind to before which prompt?');
    expect(await term.capture()).toContain('›   2  make the file');
    await term.send('Enter');
    await term.waitForText('1. conversation and files');
    // An Enter sent at once (as a second, typed-ahead Enter would be) rewinds nothing.
    await term.send('Enter');
    await term.waitForText('Ignored 1 key typed at this choice');
    await session.waitForFile('made.txt', text => text === 'made\n');
    await term.waitForText('enter rewind');
    await term.send('Enter');
    await term.waitForText('Rewound the conversation and files to just before turn 2.');
    // The input box (right above the status bar) holds the prompt again; the transcript keeps its copy.
    await term.waitForText(/› make the file\n.*nib-test-model/);
    await session.waitForFile('made.txt', text => text.includes('ENOENT'));
    await term.type(' again');
    await term.send('Enter');
    await term.waitForText('Fresh answer.');
    const messages = server.requests[3]!.body.messages;
    expect(messages.filter(message => message.role === 'user').map(message => message.content)).toEqual(['first prompt', 'make the file again']);
  });

  test('/rewind over a file changed by hand since asks first, with the diff and a warning; n keeps it, y rewinds and gives the prompt back', async () => {
    const session = await start({script: [sse.toolCall('write', {path: 'made.txt', content: 'made\n'}), sse.text('Wrote it.')], args: ['--approval-mode', 'yolo']});
    const {term, workspace} = session;
    await term.waitForText(IDLE);
    await term.type('make the file');
    await term.send('Enter');
    await term.waitForText('Wrote it.');
    await session.waitForFile('made.txt', text => text === 'made\n');
    await term.waitForText(IDLE);
    // The person's own edit, after the agent's last turn.
    await writeFile(join(workspace, 'made.txt'), 'made\nmine\n');
    await rewindFirstPrompt(term);
    await term.waitForText("You changed this file after the agent's last turn");
    expect(await term.capture()).toContain('Rewind the conversation and files to before turn 1');
    await term.waitForText('y restore');
    await term.send('n');
    await term.waitForText('Rewind cancelled; nothing changed.');
    expect(await session.read('made.txt')).toBe('made\nmine\n');
    // Again, and y: the files go back and the prompt is in the box again.
    await rewindFirstPrompt(term);
    await term.waitForText('y restore');
    await term.send('y');
    await term.waitForText('Rewound the conversation and files to just before turn 1.');
    await term.waitForText(/› make the file\n.*nib-test-model/);
    await session.waitForFile('made.txt', text => text.includes('ENOENT'));
  });

  test('a pasted prompt taller than the screen scrolls in place: the history keeps no copy of it', async () => {
    const session = await start({script: [sse.text('Got all sixty.')], width: 100, height: 30, historyLimit: 10_000});
    const {term, server} = session;
    await term.waitForText(IDLE);
    const pasted = Array.from({length: 60}, (_, index) => `pasted line ${index + 1}`).join('\n');
    // Bracketed paste, as a terminal wraps what is pasted into it.
    await term.type(`\u001B[200~${pasted}\u001B[201~`);
    await term.waitForText('┊ pasted line 60');
    for (const key of ['a', 'b', 'c', 'd']) await term.type(key);
    await term.send('Home');
    await term.waitForText('› pasted line 1');
    await term.send('End');
    await term.waitForText('pasted line 60abcd');
    const screen = await term.capture();
    expect(screen).toMatch(/⋯ \d+ above \(60 rows; ctrl\+g edits it in \$EDITOR\)/);
    const history = await term.history();
    expect(history.split('pasted line 30\n').length - 1).toBeLessThanOrEqual(1);
    expect(history.split('nib-test-model').length - 1).toBe(1);
    await term.send('Enter');
    await term.waitForText('Got all sixty.');
    expect(lastUser(server.requests[0]!.body.messages)).toBe(`${pasted}abcd`);
  });
});
