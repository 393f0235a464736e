import {expect, test} from 'vitest';
import {sse} from '../support/sse.js';
import {IDLE, nibPerTest} from './nib-session.js';

// #5 through the real binary and terminal: leave nib, start `nib --continue`, see the transcript
// again and carry on; then undo the turn that wrote a file.

const start = nibPerTest();

test('nib --continue redraws the last session and its next request carries it; /undo takes back a write', async () => {
  const session = await start({
    script: [sse.toolCall('write', {path: 'hello.txt', content: 'hi\n'}), sse.text('Wrote hello.txt.'), sse.text('Still here.')],
    args: ['--approval-mode', 'yolo'],
    // The same HOME for both runs: the second one resumes the first.
    shell: '"$@" "write hello"; "$@" --continue; exec sleep 60',
  });
  const {term} = session;
  await term.waitForText('Wrote hello.txt.');
  await session.waitForFile('hello.txt', text => text === 'hi\n');
  await term.waitForText(IDLE);
  await term.send('C-d');

  // The second nib: the earlier turn is on screen before anything is typed.
  await term.waitForText(/Resumed session \d{8}-\d{6}-[0-9a-f]{6} \(1 turns?\)/, {timeoutMs: 10_000});
  const screen = await term.capture();
  expect(screen).toContain('write hello');
  expect(screen).toContain('Wrote hello.txt.');

  await term.type('/undo');
  await term.send('Enter');
  await term.waitForText('y restore · n keep');
  expect(await term.capture()).toContain('-hi');
  await term.send('y');
  await term.waitForText('Undid turn 1');
  await session.waitForFile('hello.txt', text => text.startsWith('<ENOENT'));

  await term.type('anything else?');
  await term.send('Enter');
  await term.waitForText('Still here.');
  const sent = session.server.requests.at(-1)!.body.messages;
  expect(sent.map(m => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
  expect(sent[0]!.content).toMatch(/undid turn 1/);
});
