import stripAnsi from 'strip-ansi';

/** Polls `check` until it passes (no fixed sleeps); the last failure is rethrown at the deadline. */
export async function waitFor(check: () => void, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise(resolve => setTimeout(resolve, 10));
    }
  }
}

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
  tab: '\t',
  shiftTab: '\u001B[Z',
  ctrlC: '\u0003',
  ctrlD: '\u0004',
  backspace: '\u007F',
};
