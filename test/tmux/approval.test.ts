import {chmod, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {sse} from '../support/sse.js';
import {nibPerTest, numbered} from './nib-session.js';

// Whole program in a real terminal: tmux at a fixed size, keys through send-keys, the screen
// through capture-pane, the model through the loopback server.

const OLD = numbered(50);
// Two changes far apart: two hunks.
const NEW = OLD.replace('line 3\n', 'line three\n').replace('line 40\n', 'line forty\n');

/** The model reads notes.txt (writes to existing files need a read first), then writes NEW. */
const readThenWrite = (content: string) => [
  sse.toolCall('read', {path: 'notes.txt'}),
  sse.toolCall('write', {path: 'notes.txt', content}),
  sse.text('Done writing.'),
];

const start = nibPerTest();
let scripts = '';
beforeAll(async () => {
  scripts = await mkdtemp(join(tmpdir(), 'nib-tmux-scripts-'));
  // A scripted $EDITOR: replaces whatever nib proposes with the person's version.
  await writeFile(join(scripts, 'editor.sh'), '#!/bin/sh\nprintf "written by the person\\n" > "$1"\n');
  await chmod(join(scripts, 'editor.sh'), 0o755);
});
afterAll(() => rm(scripts, {recursive: true, force: true}));

const RED = /\u001B\[(?:[0-9;]*;)?31m/;
const GREEN = /\u001B\[(?:[0-9;]*;)?32m/;

describe('approval in a real terminal', () => {
  test('approve a write: the diff is on screen in red and green, y writes the file', async () => {
    const session = await start({script: readThenWrite(NEW), files: {'notes.txt': OLD}, args: ['tidy the notes']});
    const {term} = session;
    await term.waitForText('Allow write? y yes');
    const screen = await term.capture({colors: true});
    const lines = screen.split('\n');
    const removed = lines.find((line) => line.replace(/\u001B\[[0-9;]*m/g, '').includes('- line 3'));
    const added = lines.find((line) => line.replace(/\u001B\[[0-9;]*m/g, '').includes('+ line three'));
    expect(removed, screen).toMatch(RED);
    expect(added, screen).toMatch(GREEN);
    expect(await session.read('notes.txt')).toBe(OLD);
    const written = async () => (await session.read('notes.txt').catch(() => '')) === NEW;
    await term.press('y', written, (now) => now.includes('Allow write?'));
    await session.waitForFile('notes.txt', (text) => text === NEW);
    await term.waitForText('Done writing.');
  });

  test('deny with a reason: the file is unchanged and the reason reaches the model', async () => {
    const session = await start({script: readThenWrite(NEW), files: {'notes.txt': OLD}, args: ['tidy the notes']});
    const {term, server} = session;
    await term.waitForText('Allow write? y yes');
    await term.press('n', async () => (await term.capture()).includes('Why not?'), (now) => now.includes('Allow write?'));
    await term.type('keep the numbers as digits');
    await term.waitForText('keep the numbers as digits');
    await term.send('Enter');
    await server.waitForRequests(3);
    const sent = JSON.stringify(server.requests[2]!.body.messages);
    expect(sent).toContain('keep the numbers as digits');
    await term.waitForText('Done writing.');
    expect(await session.read('notes.txt')).toBe(OLD);
  });

  test('e with EDITOR set to a script: the edited content is what gets written', async () => {
    const session = await start({
      script: [sse.toolCall('write', {path: 'new.txt', content: 'written by the model\n'}), sse.text('Done writing.')],
      args: ['make new.txt'],
      env: {EDITOR: join(scripts, 'editor.sh'), VISUAL: ''},
    });
    const {term, server} = session;
    await term.waitForText('Allow write? y yes');
    const edited = async () => (await session.read('new.txt').catch(() => '')) !== '';
    await term.press('e', edited, (now) => now.includes('Allow write?'));
    await session.waitForFile('new.txt', (text) => !text.startsWith('<'));
    expect(await session.read('new.txt')).toBe('written by the person\n');
    await server.waitForRequests(2);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toMatch(/person|edited|changed/i);
    await term.waitForText('Done writing.');
  });

  test('hunk mode: accepting 1 of 2 hunks writes exactly that hunk', async () => {
    const session = await start({script: readThenWrite(NEW), files: {'notes.txt': OLD}, args: ['tidy the notes']});
    const {term, server} = session;
    await term.waitForText('Allow write? y yes');
    await term.press('h', async () => (await term.capture()).includes('hunk 1 of 2'), (now) => now.includes('Allow write?'));
    await term.send('n');
    await term.waitForText('hunk 2 of 2');
    await term.send('y');
    const expected = OLD.replace('line 40\n', 'line forty\n');
    await session.waitForFile('notes.txt', (text) => text === expected);
    await server.waitForRequests(3);
    expect(JSON.stringify(server.requests[2]!.body.messages)).toContain('hunk 1 of 2');
  });

  test('keys typed ahead, 150 ms apart while the call arrives, approve nothing', async () => {
    // The call arrives about a second into the typing, as when a person keeps typing the next request.
    const script = async (_request: unknown, index: number) => {
      if (index > 0) return sse.text('Done writing.');
      await new Promise(resolve => setTimeout(resolve, 1000));
      return sse.toolCall('write', {path: 'new.txt', content: 'from the model\n'});
    };
    const session = await start({script, args: ['make new.txt']});
    const {term} = session;
    await term.waitForText('make new.txt');
    // Keys on a fixed schedule (each send takes time itself; a send that runs late is not
    // followed by a longer pause), so the gaps stay near 150 ms on a loaded machine too.
    const started = Date.now();
    for (let key = 0; key < 20; key++) {
      const wait = started + key * 150 - Date.now();
      if (wait > 0) await new Promise(resolve => setTimeout(resolve, wait));
      await term.type(key % 5 === 4 ? 'a' : 'y');
    }
    const screen = await term.waitForText(/Ignored \d+ keys typed before this prompt was ready/);
    expect(screen).toContain('Allow write?');
    // A key pressed after a pause, at the prompt, is an answer. Its hints show once no key has come
    // for a while, so every key typed before has been read by then.
    await term.waitForText('Allow write? y yes');
    await expect(session.read('new.txt')).rejects.toThrow();
    await term.send('n');
    await term.waitForText('Why not?');
    await term.send('Enter');
    await term.waitForText('Done writing.');
    await expect(session.read('new.txt')).rejects.toThrow();
  });
});
