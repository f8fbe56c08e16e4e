/**
 * The dedicated fuzz run: each surface on its own worker threads (`--workers`, each with its own surface and
 * a share of the batches), watched from this thread. An input
 * whose check makes no progress for `boundMs` is a hang: the worker is terminated and a fresh one goes
 * on after that input. A worker that dies is a crash at the input it was checking. Prints, per surface:
 * inputs, crashes, hangs, accepted, refusals by reason and inputs/s.
 */
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { batchInputs, inputText, type BatchReport, type Finding, type FuzzWorkerData } from './fuzz-inputs.js';
import { startSurface, SURFACE_NAMES, type SurfaceName } from './surfaces.js';

/** The shared index while the worker starts its surface. */
const STARTING = -2;
/** The start of a surface may take this many input bounds. */
const START_BOUND_FACTOR = 6;

/** Options of the run (`npm run fuzz -- --surface all --runs 1000000 --seed 1925 --bound-ms 10000`). */
export interface FuzzOptions {
  readonly surfaces: readonly SurfaceName[];
  readonly runs: number;
  readonly seed: number;
  readonly boundMs: number;
  readonly batch: number;
  /** Inputs checked at once on the surface (1: one after another, as the seeded CI share does). */
  readonly concurrency: number;
  /** Stop a surface after the first batch that ends past this many seconds (0: run all `runs`). */
  readonly maxSeconds: number;
  /** Worker threads per surface, each with its own surface (server) and a share of the batches (b % workers). */
  readonly workers: number;
}

/** The totals of one surface. */
export interface SurfaceResult {
  readonly surface: SurfaceName;
  inputs: number;
  accepted: number;
  readonly refusals: Map<string, number>;
  readonly crashes: Finding[];
  readonly hangs: Finding[];
  /** The surface's counters (what its harness did besides checking), summed over its workers. */
  readonly counters: Map<string, number>;
  seconds: number;
  /** True when `maxSeconds` ended the run before `runs` inputs. */
  stoppedEarly?: boolean;
}

/** Parses the command line; a bad flag is an error naming it. */
export function parseFuzzArgs(argv: readonly string[]): FuzzOptions {
  const o = { surfaces: [...SURFACE_NAMES] as SurfaceName[], runs: 10_000, seed: 1925, boundMs: 10_000, batch: 500, maxSeconds: 0, concurrency: 1, workers: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i]!, argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    const num = (): number => {
      const n = Number(value);
      if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${flag} ${value}: want a positive integer`);
      return n;
    };
    if (flag === '--surface') {
      const names = value === 'all' ? [...SURFACE_NAMES] : value.split(',');
      for (const n of names) if (!(SURFACE_NAMES as readonly string[]).includes(n)) throw new Error(`--surface ${n}: want all or one of ${SURFACE_NAMES.join(', ')}`);
      o.surfaces = names as SurfaceName[];
    } else if (flag === '--runs') o.runs = num();
    else if (flag === '--seed') o.seed = num();
    else if (flag === '--bound-ms') o.boundMs = num();
    else if (flag === '--batch') o.batch = num();
    else if (flag === '--max-seconds') o.maxSeconds = num();
    else if (flag === '--concurrency') o.concurrency = num();
    else if (flag === '--workers') o.workers = num();
    else throw new Error(`unknown flag ${flag} (known: --surface, --runs, --seed, --bound-ms, --batch, --max-seconds, --concurrency, --workers)`);
  }
  return o;
}

/** Runs one surface to `opts.runs` inputs on `opts.workers` workers; `progress` is called after each batch. */
export async function fuzzSurface(surface: SurfaceName, opts: FuzzOptions, progress: (r: SurfaceResult) => void = () => undefined): Promise<SurfaceResult> {
  const result: SurfaceResult = { surface, inputs: 0, accepted: 0, refusals: new Map(), crashes: [], hangs: [], counters: new Map(), seconds: 0 };
  const started = performance.now();
  let stop = false;
  const workers = new Set<Worker>();
  await Promise.all(Array.from({ length: opts.workers }, (_, shard) => runShard(shard)));
  result.seconds = (performance.now() - started) / 1000;
  return result;

  // NOTE: one shard's worker after another: a worker that hangs or dies is replaced, going on after that input.
  async function runShard(shard: number): Promise<void> {
    let from = 0;
    while (from < opts.runs && !stop) from = await runWorker(shard, from);
  }

  /** Resolves with the index to go on from (`opts.runs` when the shard is done or the run stops). */
  function runWorker(shard: number, start: number): Promise<number> {
    const shared = new SharedArrayBuffer(8);
    const view = new Int32Array(shared);
    // NOTE: the surface's own start (a CA key, a meshd) is no input: it gets its own, longer bound.
    Atomics.store(view, 0, STARTING);
    const data: FuzzWorkerData = { surface, seed: opts.seed, from: start, runs: opts.runs, batch: opts.batch, boundMs: opts.boundMs, concurrency: opts.concurrency, shard, shards: opts.workers, shared };
    const worker = new Worker(new URL('./fuzz-worker.js', import.meta.url), { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 2048 } });
    workers.add(worker);
    return new Promise<number>((resolve) => {
      let lastCount = -1;
      let lastChange = performance.now();
      let next = start;
      let finished = false;
      const done = (from: number): void => {
        clearInterval(watchdog);
        workers.delete(worker);
        resolve(from);
      };
      const watchdog = setInterval(() => {
        const count = Atomics.load(view, 1);
        if (count !== lastCount) {
          lastCount = count;
          lastChange = performance.now();
          return;
        }
        const index = Atomics.load(view, 0);
        if (performance.now() - lastChange < (index === STARTING ? START_BOUND_FACTOR * opts.boundMs : opts.boundMs)) return;
        if (index === STARTING) {
          result.hangs.push({ index, message: `the surface did not start within ${START_BOUND_FACTOR * opts.boundMs} ms`, input: '' });
          void worker.terminate();
          done(opts.runs);
          return;
        }
        result.hangs.push({ index, message: index < 0 ? `the health check made no progress for ${opts.boundMs} ms` : `no progress for ${opts.boundMs} ms`, input: index < 0 ? '' : regenerate(index) });
        if (index >= 0) result.inputs++;
        void worker.terminate();
        done(index < 0 ? next : index + 1);
      }, Math.min(500, opts.boundMs / 4));
      worker.on('message', (m: BatchReport | { type: 'end' }) => {
        if (m.type === 'end') {
          finished = true;
          return;
        }
        next = m.next;
        result.inputs += m.done;
        for (const [k, v] of Object.entries(m.outcomes)) {
          if (k === 'accepted' || k === 'patched') result.accepted += v;
          else result.refusals.set(k, (result.refusals.get(k) ?? 0) + v);
        }
        for (const [k, v] of Object.entries(m.counters)) if (v !== 0) result.counters.set(k, (result.counters.get(k) ?? 0) + v);
        result.crashes.push(...m.crashes);
        result.hangs.push(...m.hangs);
        result.seconds = (performance.now() - started) / 1000;
        progress(result);
        if (opts.maxSeconds > 0 && result.seconds > opts.maxSeconds && !stop) {
          // NOTE: the whole run stops: every shard's worker ends after the batch it is in.
          stop = true;
          result.stoppedEarly = true;
          for (const w of workers) void w.terminate();
        }
      });
      worker.on('error', (e: Error) => {
        const index = Atomics.load(view, 0);
        result.crashes.push({ index, message: `the worker died: ${e.message}`, input: index < 0 ? '' : regenerate(index) });
        if (index >= 0) result.inputs++;
        done(index < 0 ? next : index + 1);
      });
      worker.on('exit', () => done(finished || stop ? opts.runs : next));
    });
  }

  function regenerate(index: number): string {
    // NOTE: the input is regenerated here from its seed (the worker that held it is gone).
    return `(seed ${opts.seed} batch ${Math.floor(index / opts.batch)} item ${index % opts.batch})`;
  }
}

/** The input at `index` of a surface's run, for reproducing a finding. */
export async function inputAt(surface: SurfaceName, opts: Pick<FuzzOptions, 'seed' | 'batch' | 'boundMs'>, index: number): Promise<string> {
  const s = await startSurface(surface, opts.boundMs);
  try {
    const b = Math.floor(index / opts.batch);
    return inputText(batchInputs(s.arbitrary as fc.Arbitrary<unknown>, opts.seed, b, opts.batch)[index - b * opts.batch]);
  } finally {
    await s.close();
  }
}

/** The report of one surface: counts, rate, the top refusal reasons and the first findings. */
export function formatResult(r: SurfaceResult, top = 12): string {
  const refused = [...r.refusals.values()].reduce((a, b) => a + b, 0);
  const lines = [
    `surface ${r.surface}: ${r.inputs} inputs${r.stoppedEarly ? ' (stopped at --max-seconds)' : ''} in ${r.seconds.toFixed(1)} s (${(r.inputs / Math.max(r.seconds, 1e-9)).toFixed(0)} inputs/s)`,
    `  crashes ${r.crashes.length}, hangs ${r.hangs.length}, accepted ${r.accepted}, refused ${refused} (${r.refusals.size} reasons)`,
  ];
  const sorted = [...r.refusals].sort((a, b) => b[1] - a[1]);
  for (const [reason, n] of sorted.slice(0, top)) lines.push(`  ${String(n).padStart(9)}  ${reason}`);
  if (sorted.length > top) lines.push(`  ${String(sorted.slice(top).reduce((a, [, n]) => a + n, 0)).padStart(9)}  (${sorted.length - top} other reasons)`);
  for (const [what, n] of r.counters) lines.push(`  harness: ${n} ${what}`);
  for (const f of [...r.crashes, ...r.hangs].slice(0, 5)) lines.push(`  FINDING at input ${f.index}: ${f.message}\n    input: ${f.input.slice(0, 1000)}`);
  return lines.join('\n');
}
