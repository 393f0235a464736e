import {describe, expect, test} from 'vitest';
import {sse} from '../support/sse.js';
import {IDLE, nibPerTest} from './nib-session.js';

// The whole program in a real terminal: a model that repeats one call is paused, not left to spin.

const start = nibPerTest();
const again = () => sse.toolCall('read', {path: 'notes.txt'});

/** nib in yolo (nothing else asks) with a model that reads notes.txt three times, then says `last`. */
const stuck = (last: string) =>
  start({
    script: [again(), again(), again(), sse.text(last)],
    files: {'notes.txt': 'buy milk\n'},
    args: ['--approval-mode', 'yolo', 'read my notes'],
  });

describe('a model stuck in a loop', () => {
  test('the third identical call pauses the turn; n stops it and says why', async () => {
    const {term, server} = await stuck('never sent');
    await term.waitForText('The model made the same call 3 times in a row');
    await term.waitForText('Go on? y go on');
    expect(server.requests).toHaveLength(3);
    await term.send('n');
    await term.waitForText('(a loop)');
    await term.waitForText(IDLE);
    expect(server.requests).toHaveLength(3);
  });

  test('y goes on: the call runs and the turn finishes', async () => {
    const {term, server} = await stuck('Your notes say: buy milk.');
    await term.waitForText('Go on? y go on');
    await term.send('y');
    await term.waitForText('Your notes say: buy milk.');
    expect(server.requests).toHaveLength(4);
  });
});
