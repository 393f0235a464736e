import {Text} from 'ink';
import {cleanup, render} from 'ink-testing-library';
import {useLayoutEffect} from 'react';
import {afterEach, expect, test} from 'vitest';
import {waitFor} from '../support/wait-for.js';
import {useKeyGrace} from '../../source/hooks/use-key-grace.js';

afterEach(cleanup);

// nib's build has Ink attach a prompt's key listener within the commit that shows the prompt (a
// layout effect, scripts/ink-patches.mjs). A key read right then, long after the session began,
// was typed for something else: it must be ignored, not taken for an answer after a pause.
test('a key read in the commit that shows the prompt is ignored', () => {
  const answers: number[] = [];
  function Prompt() {
    const grace = useKeyGrace({now: () => 60_000, graceMs: 300});
    // Declared after the hook, as the prompt's useInput is: its listener hears the first key.
    useLayoutEffect(() => {
      answers.push(grace.ignoreEarly(1));
    }, [grace]);
    return <Text>Allow write?</Text>;
  }
  render(<Prompt />);
  expect(answers).toEqual([1]);
});

test('a key counts once the quiet period is over and the keys are shown, not before', async () => {
  let clock = 1_000;
  let grace: ReturnType<typeof useKeyGrace> | undefined;
  function Prompt() {
    grace = useKeyGrace({now: () => clock, graceMs: 300});
    return <Text>Allow write? {grace.isReady ? 'y yes' : ''}</Text>;
  }
  const {lastFrame} = render(<Prompt />);
  clock += 299;
  expect(grace!.ignoreEarly(1)).toBe(1);
  // Past the wait by the clock, but the keys are not shown yet (the event loop was held): ignored.
  clock += 400;
  expect(grace!.ignoreEarly(1)).toBe(2);
  clock += 400;
  await waitFor(() => expect(lastFrame()).toContain('y yes'));
  expect(grace!.ignoreEarly(1)).toBe(0);
});
