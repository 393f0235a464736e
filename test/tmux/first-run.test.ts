import {expect, test} from 'vitest';
import {nibPerTest} from './nib-session.js';

const start = nibPerTest();

test('the first-run screen, taller than the terminal, leaves the shell prompt on a line of its own', async () => {
  const session = await start({
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
