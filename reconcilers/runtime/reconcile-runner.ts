import type { Logger } from 'pino';
import { combineLatest, filter, take, type Observable, type Subscription } from 'rxjs';
import { systemClock, type Clock, type Metrics } from '../../core/index.js';
import { WorkQueue } from './work-queue.js';

/** What a reconcile asks for besides success: a timed re-check of the same key. */
export interface ReconcileResult {
  /** Reconcile this key again after this many ms (a level-based re-check, not a retry). */
  readonly requeueAfterMs?: number;
}

/**
 * Brings the world in line with the desired state of one object, named by its key (`namespace/name` or
 * `name`). Level-based: it reads the current state itself, so it may run any number of times. Throw to
 * retry with backoff; throw a {@link TerminalError} for a failure that retrying cannot fix.
 */
export type ReconcileFunction = (key: string, signal: AbortSignal) => Promise<ReconcileResult | void>;

/** A failure that retrying cannot fix: logged and counted, never retried (until the key is added again). */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
}

/** Options of a {@link ReconcileRunner}. */
export interface ReconcileRunnerOptions {
  /** Unique name of the reconciler: its log field and the `name` label of its queue metrics. */
  readonly name: string;
  readonly reconcile: ReconcileFunction;
  /** Keys reconciled at once; default 1. */
  readonly maxConcurrent?: number;
  /** First retry delay after a failure; default 5 ms (controller-runtime). */
  readonly backoffInitialMs?: number;
  /** Largest retry delay; default 60 s. */
  readonly backoffMaxMs?: number;
  /** Time for queue waits, backoff and `requeueAfterMs`; default {@link systemClock}. */
  readonly clock?: Clock;
  /** Where failures are logged; default: not logged. */
  readonly logger?: Logger;
  /** Queue metrics (`MESH_ENABLE_CONTROLLER_QUEUE_METRICS`); leave undefined to record none. */
  readonly metrics?: Metrics;
}

/**
 * Runs a {@link ReconcileFunction} over a deduplicating per-key {@link WorkQueue}: at most `maxConcurrent`
 * keys at a time, one reconcile per key at a time, capped exponential backoff per key on a throw (reset by
 * a success), no retry for a {@link TerminalError}, and `requeueAfterMs` re-checks. The runner logs and
 * counts; reconcile functions do neither. Keys added before {@link ReconcileRunner.start} wait.
 */
export class ReconcileRunner {
  readonly name: string;
  readonly #reconcile: ReconcileFunction;
  readonly #maxConcurrent: number;
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger | undefined;
  readonly #metrics: Metrics | undefined;
  readonly #queue: WorkQueue;
  readonly #failures = new Map<string, number>();
  readonly #running = new Set<Promise<void>>();
  readonly #abort = new AbortController();
  #idleWaiters: (() => void)[] = [];
  #started = false;
  #stopped = false;

  constructor(options: ReconcileRunnerOptions) {
    this.name = options.name;
    this.#reconcile = options.reconcile;
    this.#maxConcurrent = options.maxConcurrent ?? 1;
    this.#initialMs = options.backoffInitialMs ?? 5;
    this.#maxMs = options.backoffMaxMs ?? 60_000;
    if (!(Number.isInteger(this.#maxConcurrent) && this.#maxConcurrent >= 1)) {
      throw new RangeError(`reconciler ${this.name}: maxConcurrent must be an integer >= 1, got ${this.#maxConcurrent}`);
    }
    if (!(this.#initialMs > 0 && this.#maxMs >= this.#initialMs)) {
      throw new RangeError(`reconciler ${this.name}: backoff needs 0 < backoffInitialMs <= backoffMaxMs`);
    }
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger;
    this.#metrics = options.metrics;
    this.#queue = new WorkQueue(this.#clock, () => this.#pump());
  }

  /** Keys queued and not yet being reconciled. */
  get depth(): number {
    return this.#queue.depth;
  }

  /** Failures of `key` since its last success (the exponent of its next backoff). */
  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** Queues `key` for a reconcile. */
  add(key: string): void {
    this.#queue.add(key);
    this.#recordDepth();
  }

  /** Queues `key` after `delayMs`. */
  addAfter(key: string, delayMs: number): void {
    this.#queue.addAfter(key, delayMs);
  }

  /** Starts reconciling queued keys. */
  start(): void {
    if (this.#stopped) throw new Error(`reconciler ${this.name}: start after stop`);
    this.#started = true;
    this.#pump();
  }

  /**
   * Starts once every cache has synced (each `synced` emits true): reconciling against half-filled caches
   * would act on objects it cannot see yet. Unsubscribe to give up waiting.
   */
  startWhenSynced(synced: readonly Observable<boolean>[]): Subscription {
    return combineLatest(synced)
      .pipe(filter((all) => all.every(Boolean)), take(1))
      .subscribe(() => this.start());
  }

  /**
   * Resolves when nothing is queued or being reconciled (delayed retries and re-checks may still be
   * pending). For tests and orderly hand-over.
   */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Drops queued keys, aborts the signal of running reconciles and resolves when they have returned. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#queue.shutDown();
    this.#abort.abort(new Error(`reconciler ${this.name} stopped`));
    await Promise.allSettled([...this.#running]);
    this.#recordDepth();
    this.#notifyIdle();
  }

  #isIdle(): boolean {
    return this.#queue.depth === 0 && this.#queue.inFlight === 0;
  }

  #pump(): void {
    if (!this.#started || this.#stopped) return;
    while (this.#queue.inFlight < this.#maxConcurrent) {
      const item = this.#queue.get();
      if (!item) break;
      this.#recordDepth();
      this.#metrics?.histogram('pilot_worker_queue_latency').observe({ name: this.name }, item.waitedMs / 1000);
      const run = this.#process(item.key).finally(() => {
        this.#running.delete(run);
        this.#queue.done(item.key);
        this.#recordDepth();
        this.#pump();
        this.#notifyIdle();
      });
      this.#running.add(run);
    }
  }

  async #process(key: string): Promise<void> {
    const startedAt = this.#clock.now();
    let result: ReconcileResult | void;
    try {
      result = await this.#reconcile(key, this.#abort.signal);
    } catch (err) {
      if (this.#stopped) return;
      if (err instanceof TerminalError) {
        this.#failures.delete(key);
        this.#logger?.error({ controller: this.name, key, error: err.message }, 'reconcile failed terminally: not retried');
        return;
      }
      const failures = this.failures(key);
      const retryInMs = Math.min(this.#maxMs, this.#initialMs * 2 ** failures);
      this.#failures.set(key, failures + 1);
      this.#logger?.warn({ controller: this.name, key, error: errorMessage(err), retryInMs }, 'reconcile failed: retrying');
      this.#queue.addAfter(key, retryInMs);
      return;
    } finally {
      this.#metrics?.histogram('pilot_worker_queue_duration').observe({ name: this.name }, (this.#clock.now() - startedAt) / 1000);
    }
    this.#failures.delete(key);
    if (result?.requeueAfterMs !== undefined && !this.#stopped) this.#queue.addAfter(key, result.requeueAfterMs);
  }

  #recordDepth(): void {
    this.#metrics?.gauge('pilot_worker_queue_depth').set({ name: this.name }, this.#queue.depth);
  }

  #notifyIdle(): void {
    if (!this.#isIdle() && !this.#stopped) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
