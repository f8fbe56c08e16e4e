/** Polls `condition` on each turn of the event loop until it holds; rejects after `deadlineMs` (real time). */
export async function waitFor(condition: () => boolean, what: string, deadlineMs = 5000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`waitFor: ${what} did not happen within ${deadlineMs}ms`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
