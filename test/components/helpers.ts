import stripAnsi from 'strip-ansi';

/** The frame without colors, for layout assertions. */
export function plain(frame: string | undefined): string {
  return stripAnsi(frame ?? '');
}

/** Raw key sequences as a terminal sends them. */
export const keys = {
  enter: '\r',
  ctrlJ: '\n',
  escape: '\u001B',
  up: '\u001B[A',
  down: '\u001B[B',
  left: '\u001B[D',
  tab: '\t',
  shiftTab: '\u001B[Z',
  ctrlC: '\u0003',
  ctrlD: '\u0004',
  backspace: '\u007F',
};

/**
 * Types as a person would: each input in its own read. Ink attaches a newly shown component's key
 * listener in an effect up to a frame (~33 ms) after the frame is drawn, and nothing on screen
 * marks the moment, so each call first waits longer than a frame; a key sent before would go to
 * the component that was there before.
 */
export function typist(stdin: {write: (data: string) => void}): (...inputs: string[]) => Promise<void> {
  return async (...inputs) => {
    await new Promise(resolve => setTimeout(resolve, 60));
    for (const input of inputs) {
      stdin.write(input);
      await new Promise(resolve => setImmediate(resolve));
    }
  };
}
