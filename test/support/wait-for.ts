/** Polls `check` until it returns true (or a value), failing with `describe()` after `timeoutMs`. */
export async function waitFor(check: () => boolean, describe: () => string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
