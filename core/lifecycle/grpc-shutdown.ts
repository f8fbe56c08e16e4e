// Closing a grpc-js server: gracefully first, then cutting what is left. Never rely on tryShutdown alone:
// grpc-js 1.14 waits for every session it knows to close, and a session the peer has just torn down
// (destroyed, its 'close' not yet emitted) never answers Http2Session.close(), so the callback can hang
// forever (seen in bench:ca when the callers exited just before the server was closed).
import type * as grpc from '@grpc/grpc-js';

/** Largest delay setTimeout honours. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Lets calls in flight finish for up to `graceMs`, then force-closes; resolves when the server is closed. */
export function closeGrpcServer(server: grpc.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, Math.min(Math.max(0, graceMs), MAX_TIMER_MS));
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
