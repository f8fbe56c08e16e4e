/**
 * Thrown by a `check` when waiting longer cannot help (the process it waits for has exited): {@link waitFor}
 * rethrows it at once instead of polling on to its deadline.
 */
export class WaitAborted extends Error {
  override readonly name = 'WaitAborted';
}

/**
 * Polls `check` until it returns a value other than undefined or false, and returns that value.
 * Throws after `timeoutMs` with `what` and the last error `check` threw, if any; a {@link WaitAborted} at once.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      if (err instanceof WaitAborted) throw err;
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
