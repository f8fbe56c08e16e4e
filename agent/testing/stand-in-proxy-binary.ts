/** Test helpers around the stand-in proxy (stand-in-proxy.ts): an executable to use as ProxyConfig binaryPath, its log. */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The compiled stand-in proxy (beside this file in dist/). */
export const STAND_IN_PROXY_JS = join(dirname(fileURLToPath(import.meta.url)), 'stand-in-proxy.js');

/** Writes `<dir>/dataplane`, a shell script that runs the stand-in proxy with this Node; returns its path. */
export function writeStandInProxyBinary(dir: string): string {
  const path = join(dir, 'dataplane');
  writeFileSync(path, `#!/bin/sh\nexec '${process.execPath}' '${STAND_IN_PROXY_JS}' "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** One event the stand-in recorded in its `STAND_IN_LOG`. */
export interface StandInEvent {
  readonly pid: number;
  readonly event: 'start' | 'admin' | 'drain' | 'sigterm' | 'quit' | 'sds' | 'xds' | 'xds-error';
  /** `xds`: the response's type URL and resource count; `xds-error`: the gRPC status. */
  readonly typeUrl?: string;
  readonly resources?: number;
  readonly code?: number;
  readonly details?: string;
  readonly argv?: string[];
  /** `sds`: the secret's name, and for `default` the leaf's serial and SAN. */
  readonly name?: string;
  readonly serial?: string;
  readonly san?: string;
  readonly query?: string;
  readonly draining?: boolean;
  readonly port?: number;
}

/** The events recorded so far (none when the log does not exist yet). */
export function standInEvents(logPath: string): StandInEvent[] {
  if (!existsSync(logPath)) return [];
  return readFileSync(logPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StandInEvent);
}

/** Polls `condition` on each turn of the event loop until it holds; rejects after `deadlineMs` of real time. */
export async function waitFor(condition: () => boolean, what: string, deadlineMs = 10_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`waitFor: ${what} did not happen within ${deadlineMs}ms`);
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
}
