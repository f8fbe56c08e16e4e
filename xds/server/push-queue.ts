/**
 * The push queue: fans a PushRequest out to connections with backpressure.
 *
 * - One push in flight per connection. A request for a connection that is being pushed waits, merged
 *   (`mergePushRequests`) with any others that arrive meanwhile, and is queued when the push ends.
 * - A request for a connection that is already queued merges into the queued one (it keeps its place).
 * - At most `concurrency` pushes run at once (`PILOT_PUSH_THROTTLE`); connections are served in FIFO order.
 * - Pushes whose resources are cached complete in microtasks, so one push ending starts the next without
 *   the event loop turning; once the turn's slice is used up, starting further pushes waits for `setImmediate`, so
 *   reads (ACKs, new requests) and timers get their turn.
 */
import { mergePushRequests, pushPathSlicer, type PushRequest, type TurnSlicer } from '../../core/index.js';

/** Options of a PushQueue. */
export interface PushQueueOptions<K> {
  /** Pushes allowed at once (>= 1). */
  readonly concurrency: number;
  /** Pushes one connection. The queue waits for the promise before that connection's next push. */
  readonly push: (key: K, request: PushRequest) => Promise<void>;
  /** Called when a push starts with the milliseconds the connection waited in the queue. */
  readonly onDequeue?: (key: K, waitedMs: number) => void;
  /** Called when `push` rejects (the queue itself carries on). */
  readonly onError?: (key: K, error: unknown) => void;
  /** Clock in milliseconds; `performance.now` by default. */
  readonly now?: () => number;
  /** Bounds the stretch of starting pushes within one turn of the event loop; default `pushPathSlicer`. */
  readonly slicer?: TurnSlicer;
}

interface Queued {
  request: PushRequest;
  readonly enqueuedAt: number;
}

/** Per-connection push queue with merging and a concurrency bound. `K` identifies a connection. */
export class PushQueue<K> {
  readonly #opts: PushQueueOptions<K>;
  readonly #now: () => number;
  readonly #queued = new Map<K, Queued>();
  readonly #inFlight = new Set<K>();
  readonly #pending = new Map<K, PushRequest>();
  #idleWaiters: (() => void)[] = [];
  #closed = false;
  readonly #slicer: TurnSlicer;
  #deferred = false;

  constructor(opts: PushQueueOptions<K>) {
    if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) {
      throw new RangeError(`push queue concurrency must be a whole number >= 1 (got ${opts.concurrency})`);
    }
    this.#opts = opts;
    this.#now = opts.now ?? (() => performance.now());
    this.#slicer = opts.slicer ?? pushPathSlicer;
  }

  /** Asks for `request` to be pushed to `key`, merging with what is already waiting for it. */
  enqueue(key: K, request: PushRequest): void {
    if (this.#closed) return;
    if (this.#inFlight.has(key)) {
      this.#pending.set(key, mergePushRequests(this.#pending.get(key), request));
      return;
    }
    const q = this.#queued.get(key);
    if (q) q.request = mergePushRequests(q.request, request);
    else this.#queued.set(key, { request, enqueuedAt: this.#now() });
    this.#pump();
  }

  /** Forgets a connection (closed): drops its queued and pending requests. An in-flight push runs out. */
  remove(key: K): void {
    this.#queued.delete(key);
    this.#pending.delete(key);
    this.#checkIdle();
  }

  /** Connections waiting to be pushed (not counting in-flight ones). */
  get queued(): number {
    return this.#queued.size;
  }

  /** Pushes running now. */
  get running(): number {
    return this.#inFlight.size;
  }

  /** The request queued for a connection, if any (merged). */
  queuedRequest(key: K): PushRequest | undefined {
    return this.#queued.get(key)?.request ?? this.#pending.get(key);
  }

  /** Resolves when nothing is queued, pending or running. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops starting pushes and drops everything queued. */
  close(): void {
    this.#closed = true;
    this.#queued.clear();
    this.#pending.clear();
    this.#checkIdle();
  }

  #isIdle(): boolean {
    return this.#queued.size === 0 && this.#pending.size === 0 && this.#inFlight.size === 0;
  }

  #checkIdle(): void {
    if (!this.#isIdle()) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }

  /** False when this turn of the event loop has started pushes for long enough (a pump is then scheduled). */
  #mayStart(): boolean {
    if (this.#deferred) return false;
    if (!this.#slicer.overBudget()) return true;
    this.#deferred = true;
    setImmediate(() => {
      this.#deferred = false;
      this.#pump();
    });
    return false;
  }

  #pump(): void {
    while (!this.#closed && this.#inFlight.size < this.#opts.concurrency && this.#queued.size > 0 && this.#mayStart()) {
      const [key, q] = this.#queued.entries().next().value as [K, Queued];
      this.#queued.delete(key);
      this.#inFlight.add(key);
      this.#opts.onDequeue?.(key, this.#now() - q.enqueuedAt);
      let p: Promise<void>;
      try {
        p = this.#opts.push(key, q.request);
      } catch (e) {
        p = Promise.reject(e);
      }
      void p.catch((e: unknown) => this.#opts.onError?.(key, e)).finally(() => this.#done(key));
    }
  }

  #done(key: K): void {
    this.#inFlight.delete(key);
    const next = this.#pending.get(key);
    if (next) {
      this.#pending.delete(key);
      if (!this.#closed) this.#queued.set(key, { request: next, enqueuedAt: this.#now() });
    }
    this.#pump();
    this.#checkIdle();
  }
}
