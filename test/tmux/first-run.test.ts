import {afterEach, beforeAll, expect, test} from 'vitest';
import {ensureBuilt, startNib, type NibSession} from './nib-session.js';

let session: NibSession | undefined;
beforeAll(ensureBuilt);
afterEach(async () => {
  await session?.close();
  session = undefined;
});

test('the first-run screen, taller than the terminal, leaves the shell prompt on a line of its own', async () => {
  session = await startNib({
    script: [],
    env: {NIB_MODEL: '', OPENAI_BASE_URL: '', OPENAI_API_KEY: ''},
    shell: '"$@"; printf "PROMPT\\$ "; exec sleep 60',
    width: 40,
    height: 20,
  });
  const {term} = session;
  await term.waitForText('Press any key to exit.');
  await term.type('x');
  const screen = await term.waitForText('PROMPT$');
  expect(screen).toMatch(/^PROMPT\$/m);
  expect(screen).not.toMatch(/exit\.PROMPT/);
});
