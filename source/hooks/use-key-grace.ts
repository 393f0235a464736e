import {useInput, type Key} from 'ink';
import {useCallback, useEffect, useLayoutEffect, useRef, useState} from 'react';

/**
 * How long a prompt that decides something waits for quiet before a key counts. Long enough to
 * catch keys typed for something else (a person mid-sentence types a key every 100–200 ms),
 * short enough to feel instant to someone who reads the prompt first.
 */
export const KEY_GRACE_MS = 300;

export type KeyGrace = {
  /** Keys count now: the prompt was shown, and no key came, at least `graceMs` ago. */
  readonly isReady: boolean;
  /**
   * Call for every key read before acting on it. 0: the keys count. Otherwise they came too early
   * and must decide nothing; the answer is how many keys were ignored so far, for the message.
   * An early key restarts the wait, so a person still typing never answers the prompt. `typing`:
   * keys that answer nothing here (letters at a choice of Enter and digits), which count as early
   * whenever they come, so the Enter that ends a typed line answers nothing either.
   */
  readonly ignoreEarly: (keys: number, typing?: boolean) => number;
};

/**
 * Keys typed ahead must not answer a question the person has not seen: keys buffered before a
 * prompt appeared, and keys within a short quiet period after it is drawn, are ignored. `now` is
 * injectable so tests decide time instead of sleeping; the timer only redraws the key hints.
 */
/** The clock and the wait, for tests; undefined takes the defaults, so callers pass their props on as they are. */
export type GraceTiming = {now?: (() => number) | undefined; graceMs?: number | undefined};

export function useKeyGrace({now = Date.now, graceMs = KEY_GRACE_MS}: GraceTiming = {}): KeyGrace {
  // Counted from when the key handler is attached, not from the render: under load the two can
  // be far apart, and keys typed in between went to whatever listened before; the first key this
  // prompt sees must not pass for a pause. nib's build has Ink attach it in a layout effect (see
  // scripts/ink-patches.mjs), so this is one too: a key read right after the commit must meet
  // the wait already started. Until then the render's time stands, never a time long past.
  const quietSince = useRef(now());
  useLayoutEffect(() => {
    quietSince.current = now();
  }, []);
  // A ref, not state: several keys in one read are counted before React re-renders.
  const ignored = useRef(0);
  const [isReady, setReady] = useState(graceMs <= 0);

  useEffect(() => {
    if (isReady) return;
    let timer: NodeJS.Timeout | undefined;
    // Checked again when it fires: a key that came meanwhile moved the end of the wait.
    const check = () => {
      const wait = quietSince.current + graceMs - now();
      if (wait <= 0) setReady(true);
      else timer = setTimeout(check, wait);
    };
    check();
    return () => clearTimeout(timer);
  }, [isReady, graceMs, now]);

  const ignoreEarly = useCallback(
    (keys: number, typing = false) => {
      const time = now();
      // Keys count once the hints saying so are drawn (a key handler sees the render it was
      // committed with), not merely once the clock says so: keys typed while the event loop was
      // held (a module loading, a collection) are read at its end, past the wait, and must not
      // pass for an answer after a pause.
      if (!typing && isReady && time - quietSince.current >= graceMs) return 0;
      quietSince.current = time;
      ignored.current += keys;
      setReady(false);
      return ignored.current;
    },
    [now, graceMs, isReady],
  );

  return {isReady, ignoreEarly};
}

export type YesNoOptions = GraceTiming & {
  readonly isActive?: boolean;
  /** Sees every key first and takes it by returning true (scrolling): never held back. */
  readonly other?: (input: string, key: Key) => boolean;
};

/**
 * The keys of a yes/no question: y answers yes, n or Esc no, once, and only once keys count
 * (useKeyGrace). `isReady` says when to show the keys; `notice`, why keys did nothing.
 */
export function useYesNo(onAnswer: (yes: boolean) => void, {isActive = true, other, now, graceMs}: YesNoOptions = {}): {isReady: boolean; notice: string | undefined} {
  const grace = useKeyGrace({now, graceMs});
  const answered = useRef(false);
  const [notice, setNotice] = useState<string>();
  useInput(
    (input, key) => {
      if (other?.(input, key) || answered.current) return;
      const ignored = grace.ignoreEarly(Math.max(1, [...input].length));
      if (ignored > 0) {
        setNotice(`Ignored ${ignored} key${ignored === 1 ? '' : 's'} typed before this question was ready: pause, then press one key.`);
        return;
      }
      const answer = input.toLowerCase();
      if (answer === 'y' || answer === 'n' || key.escape) {
        answered.current = true;
        onAnswer(answer === 'y');
      } else if ([...input].length > 1) setNotice('Several keys arrived at once and were ignored: press one key.');
    },
    {isActive},
  );
  return {isReady: grace.isReady, notice};
}

/**
 * A list's choice (a picker's Enter, /rewind's Enter): it counts once the list has been
 * on screen a moment with no key that could decide it (useKeyGrace), and only once; one sooner does
 * nothing but say so. `decides(keys, isChoice)` is called with every key the list does not take
 * itself (moving, filtering); a key that is no choice (`isChoice` false) restarts the wait, so the
 * Enter that ends a typed line chooses nothing.
 */
export function useChoiceGrace(timing: GraceTiming = {}): {isReady: boolean; notice: string | undefined; decides: (keys: number, isChoice: boolean) => boolean} {
  const grace = useKeyGrace(timing);
  const [notice, setNotice] = useState<string>();
  const decided = useRef(false);
  return {
    isReady: grace.isReady,
    notice,
    decides: (keys, isChoice) => {
      const ignored = grace.ignoreEarly(keys, !isChoice);
      if (ignored > 0) {
        setNotice(`Ignored ${ignored} key${ignored === 1 ? '' : 's'} typed at this choice: pause, then press enter.`);
        return false;
      }
      // Once: a second Enter in the same read must not choose twice.
      if (!isChoice || decided.current) return false;
      decided.current = true;
      return true;
    },
  };
}
