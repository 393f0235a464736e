import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A long session allocates in bursts (a turn) between pauses (a person reading and typing). V8
 * grows its heap with each burst and hands memory back to the system only after a long quiet
 * spell: measured over 120 back-to-back turns (bench/long-session.mjs), RSS grew 66 MB while the
 * live objects grew ~3 MB. So once a turn is over and the screen has not changed for `quietMs`
 * (no key typed, nothing streaming), nib asks V8 for the collection it makes under memory
 * pressure, which also returns the freed memory. It holds the main thread ~50-100 ms with a long
 * session's heap (more with a bigger one), once per turn, after 3 s in which nothing happened on
 * the screen; a key typed just then is drawn that much later.
 */
export type IdleCollection = {
  /** Subscribes to the session becoming busy (true) or free (false); returns the unsubscribe. */
  onBusy: (listener: (busy: boolean) => void) => () => void;
  /** When the screen last changed (performance.now()). */
  lastActivity: () => number;
  quietMs?: number;
  /** For tests: the clock, and what to run in place of V8's collection. */
  now?: () => number;
  collect?: (() => void) | null;
};

export function collectWhenIdle({onBusy, lastActivity, quietMs = 3000, now = () => performance.now(), collect = v8Collect()}: IdleCollection): () => void {
  if (!collect) return () => {};
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const quiet = now() - lastActivity();
    if (quiet < quietMs) timer = setTimeout(check, quietMs - quiet).unref();
    else collect();
  };
  const unsubscribe = onBusy(busy => {
    clearTimeout(timer);
    timer = busy ? undefined : setTimeout(check, quietMs).unref();
  });
  return () => {
    clearTimeout(timer);
    unsubscribe();
  };
}

type Gc = (options: {type: 'major'; flavor: 'last-resort'}) => void;

/** V8's gc() (Node hides it unless started with --expose-gc), as memory pressure runs it; null if it cannot be had. */
function v8Collect(): (() => void) | null {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? () => (gc as Gc)({type: 'major', flavor: 'last-resort'}) : null;
  } catch {
    return null;
  }
}

/**
 * V8 flags the interactive session sets for the memory a long session holds. V8 reads each at the
 * moment it applies it (a growth, a compile), so they take effect when set; it does not throw on a
 * flag it lacks but prints a line, which would land on the screen, so test/idle-gc.test.ts checks
 * that this Node's V8 takes each one quietly.
 */
export const V8_FLAGS = {
  /**
   * Keeps V8's young generation at the size startup left it (8 MB). V8 doubles it, up to 64 MB,
   * while allocation runs high, and keeps it until a quiet spell: an answer streamed at full speed
   * (20,000 tokens, bench/tui.mjs 2) took peak RSS from 104 to 171 MB that way, 150 MB with it
   * held, for the same CPU. Objects that outlive a smaller young generation are collected with the
   * old one, which the idle collection above keeps small between turns.
   */
  holdYoungGeneration: '--semi-space-growth-factor=1',
  /**
   * Has the optimizing compiler inline less into each function it optimizes: callees of at most
   * 230 bytes of bytecode in all, against V8's 920. Its compile jobs run on background threads, and
   * the memory a thread's malloc arena took for one stays with the process: while a 20,000-token
   * answer streamed at full speed, those arenas grew 25 MB, 16 MB with this, and peak RSS fell 3-6
   * MB for the same CPU. The edit tool's searches on a 200,000-line file (bench/edit.mjs) and fuzzy
   * matching (bench/mentions.mjs) ran as fast with it.
   */
  inlineLess: '--max-inlined-bytecode-size-cumulative=230',
} as const;

/** Sets V8_FLAGS. */
export function setV8Flags(): void {
  for (const flag of Object.values(V8_FLAGS)) v8.setFlagsFromString(flag);
}
