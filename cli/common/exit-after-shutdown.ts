/** How a daemon command ends after its lifecycle has shut down. */
import { Socket } from 'node:net';
import type { ShutdownResult } from '../../core/index.js';
import type { TextSink } from '../framework/index.js';

/** How long a daemon waits, after its parts are closed, for the event loop to drain by itself. */
const DRAIN_MS = 1000;

/**
 * Reports a shutdown that did not finish cleanly and returns the exit code (0 when clean). Whatever the
 * outcome, the process is made to exit once `DRAIN_MS` has passed: a daemon whose parts are all closed
 * must not linger because a socket or timer outside them is still open (it names what was left open).
 */
export function exitAfterShutdown(result: ShutdownResult, shutdownMs: number, stderr: TextSink): number {
  for (const { name, error } of result.errors) stderr.write(`Error: closing ${name}: ${(error as Error).message ?? String(error)}\n`);
  const code = !result.forced && result.errors.length === 0 ? 0 : 1;
  if (result.forced) stderr.write(`Error: shutdown did not finish within ${shutdownMs}ms; exiting anyway\n`);
  // NOTE: unref'd, so it only fires when a leftover handle keeps the process alive.
  setTimeout(() => {
    const open = openResources();
    if (open !== '') stderr.write(`Warning: still open after shutdown, exiting anyway: ${open}\n`);
    process.exit(code);
  }, DRAIN_MS).unref();
  return code;
}

/**
 * The kinds of resource keeping the event loop alive, counted: `TCPSocketWrap x2, Timeout`, then the
 * sockets' endpoints (`sockets: 127.0.0.1:40112 -> 127.0.0.1:6443`) so the leak can be traced.
 */
function openResources(): string {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  const kinds = [...counts].map(([kind, n]) => (n > 1 ? `${kind} x${n}` : kind)).join(', ');
  // NOTE: _getActiveHandles is undocumented; it is the only way to see which sockets are left.
  const handles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.() ?? [];
  const sockets = handles
    .filter((h): h is Socket => h instanceof Socket && h.remoteAddress !== undefined)
    .map((s) => `${s.localAddress}:${s.localPort} -> ${s.remoteAddress}:${s.remotePort}`);
  return sockets.length > 0 ? `${kinds}; sockets: ${sockets.join(', ')}` : kinds;
}
