/** How a daemon command ends after its lifecycle has shut down. */
import type { ShutdownResult } from '../../core/index.js';
import type { TextSink } from '../framework/index.js';

/**
 * Reports a shutdown that did not finish cleanly and returns the exit code (0 when clean). After a
 * forced shutdown, something may still hold the event loop open, so the process is made to exit.
 */
export function exitAfterShutdown(result: ShutdownResult, shutdownMs: number, stderr: TextSink): number {
  for (const { name, error } of result.errors) stderr.write(`Error: closing ${name}: ${(error as Error).message ?? String(error)}\n`);
  if (!result.forced && result.errors.length === 0) return 0;
  if (result.forced) {
    stderr.write(`Error: shutdown did not finish within ${shutdownMs}ms; exiting anyway\n`);
    // NOTE: unref'd, so it only fires when a leftover handle keeps the process alive.
    setTimeout(() => process.exit(1), 1000).unref();
  }
  return 1;
}
