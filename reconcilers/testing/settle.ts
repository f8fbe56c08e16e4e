/** Lets queued promise callbacks run (several macrotask turns, so chains of awaits complete). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}
