/**
 * Waiting for the server under test to go idle before the first edit. Every client being complete and no
 * response for `--quiet-ms` does not mean the server is done with its start: istiod at S=1000 / N=2000
 * sidecars went on computing for over a minute after its last client completed (80 s of CPU, with gaps of
 * more than 500 ms between responses), and the first two edits then measured that backlog (p99 > 30 s,
 * three quarters of the clients missing) rather than the edit. So the edits wait, for either server, until
 * the server process tree has used less than `share` of one core over the last `windowMs`.
 */

/** The idle bound: under a tenth of a core over one second. */
export const IDLE_SHARE_OF_A_CORE = 0.1;
export const IDLE_WINDOW_MS = 1000;

/** How the wait went. */
export interface IdleWait {
  /** False when the deadline came first (the edits then start anyway). */
  readonly idle: boolean;
  /** From the start of the wait until the server was idle (or the deadline). */
  readonly waitedMs: number;
  /** Server CPU seconds used during the wait. */
  readonly cpuSeconds: number;
}

/** What the wait reads and how it waits; the defaults are the process's clock and timers. */
export interface IdleWaitOptions {
  /** The server process tree's CPU seconds so far. */
  readonly cpuSeconds: () => number;
  /** Wall clock (ms) when the wait gives up. */
  readonly deadline: number;
  readonly share?: number;
  readonly windowMs?: number;
  readonly pollMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Resolves once the server used under `share` of a core over the last `windowMs`, or at `deadline`. */
export async function waitServerIdle(o: IdleWaitOptions): Promise<IdleWait> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const share = o.share ?? IDLE_SHARE_OF_A_CORE;
  const windowMs = o.windowMs ?? IDLE_WINDOW_MS;
  const pollMs = o.pollMs ?? 100;
  const start = now();
  const cpu0 = o.cpuSeconds();
  // NOTE: samples of (time, CPU); the oldest kept is the newest one at least a window old.
  const samples: { at: number; cpu: number }[] = [{ at: start, cpu: cpu0 }];
  for (;;) {
    await sleep(pollMs);
    const at = now();
    const cpu = o.cpuSeconds();
    samples.push({ at, cpu });
    while (samples.length > 1 && at - samples[1]!.at >= windowMs) samples.shift();
    const from = samples[0]!;
    const span = at - from.at;
    if (span >= windowMs && ((cpu - from.cpu) * 1000) / span < share) return { idle: true, waitedMs: at - start, cpuSeconds: cpu - cpu0 };
    if (at >= o.deadline) return { idle: false, waitedMs: at - start, cpuSeconds: cpu - cpu0 };
  }
}
