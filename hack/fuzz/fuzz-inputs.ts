/**
 * What the fuzz worker and the run share: the worker's data, its reports, and the deterministic inputs
 * (batch b of a surface is `fc.sample(arbitrary, { seed: seed + b })`).
 */
import fc from 'fast-check';
import type { SurfaceName } from './surfaces.js';

/** What the main thread passes. */
export interface FuzzWorkerData {
  readonly surface: SurfaceName;
  readonly seed: number;
  readonly from: number;
  readonly runs: number;
  readonly batch: number;
  readonly boundMs: number;
  /** Inputs checked at once (1: one after another). */
  readonly concurrency: number;
  /** This worker checks the batches b with b % shards === shard (each of `shards` workers has its own surface). */
  readonly shard: number;
  readonly shards: number;
  /** [0]: index of the input being checked (-1: the health check); [1]: progress counter (bumped at each start and end). */
  readonly shared: SharedArrayBuffer;
}

/** One finding: the input's index, what broke, and the input (JSON, cut). */
export interface Finding {
  readonly index: number;
  readonly message: string;
  readonly input: string;
}

/** A report after each batch (counts since the previous report). */
export interface BatchReport {
  readonly type: 'batch';
  readonly next: number;
  readonly done: number;
  readonly outcomes: Record<string, number>;
  readonly crashes: Finding[];
  readonly hangs: Finding[];
  /** The surface's counters since the previous report. */
  readonly counters: Record<string, number>;
}

/** The first index at or after `i` that belongs to the batches of `shard` (of `shards`). */
export function shardStart(i: number, batch: number, shard: number, shards: number): number {
  const b = Math.floor(i / batch);
  const skip = (shard - (b % shards) + shards) % shards;
  return skip === 0 ? i : (b + skip) * batch;
}

/** The input as JSON for a report (Uint8Arrays as arrays), at most 4,000 characters. */
export function inputText(input: unknown): string {
  const s = JSON.stringify(input, (_k, v: unknown) => (v instanceof Uint8Array ? { bytes: Buffer.from(v).toString('base64') } : v)) ?? String(input);
  return s.length > 4000 ? `${s.slice(0, 4000)}... (${s.length} characters)` : s;
}

/** The inputs of batch `b`. */
export function batchInputs(arbitrary: fc.Arbitrary<unknown>, seed: number, b: number, batch: number): unknown[] {
  return fc.sample(arbitrary, { seed: seed + b, numRuns: batch });
}

