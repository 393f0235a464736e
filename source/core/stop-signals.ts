import {constants} from 'node:os';

/** The shell's convention, 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. */
export function exitCodeFor(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 2);
}

/**
 * The first of `signals` calls `onStop`, and the caller winds down: it aborts its turn (a command
 * runs in its own process group, which no signal to nib reaches, so dying on the spot would leave
 * it running with nobody to stop it) and flushes its session log. A second one exits at once.
 * Returns the function that removes the handlers.
 */
export function onStopSignals(signals: readonly NodeJS.Signals[], onStop: (signal: NodeJS.Signals) => void): () => void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(exitCodeFor(signal));
    stopping = true;
    onStop(signal);
  };
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}
