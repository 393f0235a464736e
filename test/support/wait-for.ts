/**
 * Polls `check` until it passes: an assertion that stops throwing, or a predicate that returns
 * true. Past `timeoutMs` the last assertion error is thrown, or `describe()` says what was seen.
 * The default is long because shared 2-core machines can be slow; a passing test never waits it out.
 */
export async function waitFor(check: () => unknown, describe?: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let failure: unknown;
    try {
      if (check() !== false) return;
    } catch (error) {
      failure = error;
    }
    if (Date.now() > deadline) throw failure ?? new Error(`timed out waiting${describe ? `: ${describe()}` : ''}`);
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}
