/**
 * One surface's fuzz loop on a worker thread: generates the inputs of its shard's batches in `[from, runs)`
 * deterministically (batch b is `fc.sample(arbitrary, { seed: seed + b })`), checks each, and reports counts
 * after every batch. The index of the input being checked and a progress counter sit in shared memory, so the main
 * thread can see a hang even when the check blocks this thread, terminate it, and go on after that input.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { batchInputs, inputText, shardStart, type BatchReport, type Finding, type FuzzWorkerData } from './fuzz-inputs.js';
import { startSurface } from './surfaces.js';

async function main(d: FuzzWorkerData): Promise<void> {
  const shared = new Int32Array(d.shared);
  const surface = await startSurface(d.surface, d.boundMs);
  let i = shardStart(d.from, d.batch, d.shard, d.shards);
  let counted: Record<string, number> = {};
  try {
    for (; i < d.runs; i = shardStart(i, d.batch, d.shard, d.shards)) {
      const b = Math.floor(i / d.batch);
      const inputs = batchInputs(surface.arbitrary, d.seed, b, d.batch);
      const end = Math.min((b + 1) * d.batch, d.runs);
      const outcomes: Record<string, number> = {};
      const crashes: Finding[] = [];
      const hangs: Finding[] = [];
      const start = i;
      // NOTE: with concurrency > 1, [0] holds the oldest input in flight, so a hang names that one (the others in
      // flight are checked again after it); a finding's input is reproduced alone with `inputAt`.
      const inFlight = new Set<number>();
      const lane = async (): Promise<void> => {
        while (i < end) {
          const k = i++;
          const input = inputs[k - b * d.batch];
          inFlight.add(k);
          Atomics.store(shared, 0, Math.min(...inFlight));
          Atomics.add(shared, 1, 1);
          try {
            const o = await surface.check(input);
            outcomes[o] = (outcomes[o] ?? 0) + 1;
          } catch (e) {
            const message = (e as Error).message ?? String(e);
            (message.startsWith('hang:') ? hangs : crashes).push({ index: k, message: message.slice(0, 1000), input: inputText(input) });
          }
          inFlight.delete(k);
          Atomics.add(shared, 1, 1);
        }
      };
      await Promise.all(Array.from({ length: d.concurrency }, lane));
      Atomics.store(shared, 0, -1);
      Atomics.add(shared, 1, 1);
      try {
        await surface.healthy();
      } catch (e) {
        crashes.push({ index: i - 1, message: `after the batch ending here: ${(e as Error).message}`.slice(0, 1000), input: '' });
      }
      const now = surface.counters?.() ?? {};
      const counters = Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - (counted[k] ?? 0)]));
      counted = now;
      parentPort!.postMessage({ type: 'batch', next: i, done: i - start, outcomes, crashes, hangs, counters } satisfies BatchReport);
    }
  } finally {
    await surface.close();
  }
}

main(workerData as FuzzWorkerData).then(
  () => parentPort!.postMessage({ type: 'end' }),
  (e: unknown) => {
    throw e;
  },
);
