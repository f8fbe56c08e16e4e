/**
 * The push queue: fans a PushRequest out to connections with backpressure.
 *
 * - One push in flight per connection. A request for a connection that is being pushed waits, merged
 *   (`mergePushRequests`) with any others that arrive meanwhile, and is queued when the push ends.
 * - A request for a connection that is already queued merges into the queued one (it keeps its place).
 * - At most `concurrency` pushes run at once (`PILOT_PUSH_THROTTLE`); connections are served in FIFO order.
 * - A push holds its slot at most `slotHoldMs`; one still running then (its proxy does not read) goes on
 *   without a slot, and the connection's next requests wait, merged, until it ends, without taking one.
 *   A connection that `drained` says is still writing earlier responses waits the same way before its push.
 * - `remove` (the connection closed) frees everything the connection holds, its slot included, even if its
 *   push never settles.
 * - Pushes whose resources are cached complete in microtasks, so one push ending starts the next without
 *   the event loop turning; once the turn's slice is used up, starting further pushes waits for the next turn, so
 *   reads (ACKs, new requests) and timers get their turn.
 */
import { mergePushRequests, nextTurn, pushPathSlicer, systemClock, type CancelTimer, type Clock, type PushRequest, type TurnSlicer } from '../../core/index.js';
import { KeyedFifo } from './keyed-fifo.js';

/** Options of a PushQueue. */
export interface PushQueueOptions<K> {
  /** Pushes allowed at once (>= 1). */
  readonly concurrency: number;
  /** Pushes one connection. The queue waits for the promise before that connection's next push. */
  readonly push: (key: K, request: PushRequest) => Promise<void>;
  /** Called when a push starts with the milliseconds the connection waited in the queue. */
  readonly onDequeue?: (key: K, waitedMs: number) => void;
  /**
   * Longest a push holds a slot (ms); afterwards it runs on without one. Default: no bound.
   * NOTE: a push waits for its writes to be taken by HTTP/2 (backpressure for slow but healthy proxies); a
   * proxy that never reads would hold its slot for ever, and PILOT_PUSH_THROTTLE of them stop every push.
   */
  readonly slotHoldMs?: number;
  /**
   * Undefined when the connection may be pushed now, else a promise that settles once its earlier
   * responses are taken (it then waits for a slot again, at the back of the queue).
   */
  readonly drained?: (key: K) => Promise<void> | undefined;
  /** Called when `push` rejects (the queue itself carries on). */
  readonly onError?: (key: K, error: unknown) => void;
  /** The clock of queue waits and of the slot-hold bound; the system clock by default. */
  readonly clock?: Clock;
  /** Bounds the stretch of starting pushes within one turn of the event loop; default `pushPathSlicer`. */
  readonly slicer?: TurnSlicer;
}

interface Queued {
  request: PushRequest;
  readonly enqueuedAt: number;
}

/** A push that has started; `slot` while it counts against the concurrency bound. */
interface Running {
  slot: boolean;
  timer: CancelTimer | undefined;
}

/** Per-connection push queue with merging and a concurrency bound. `K` identifies a connection. */
export class PushQueue<K> {
  readonly #opts: PushQueueOptions<K>;
  readonly #clock: Clock;
  readonly #queued = new KeyedFifo<K, Queued>();
  readonly #inFlight = new Map<K, Running>();
  /** Connections waiting for their earlier responses to drain before they may take a slot. */
  readonly #draining = new Map<K, Queued>();
  readonly #pending = new Map<K, PushRequest>();
  #slots = 0;
  #idleWaiters: (() => void)[] = [];
  #closed = false;
  readonly #slicer: TurnSlicer;
  #deferred = false;

  constructor(opts: PushQueueOptions<K>) {
    if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) {
      throw new RangeError(`push queue concurrency must be a whole number >= 1 (got ${opts.concurrency})`);
    }
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#slicer = opts.slicer ?? pushPathSlicer;
  }

  /** Asks for `request` to be pushed to `key`, merging with what is already waiting for it. */
  enqueue(key: K, request: PushRequest): void {
    if (this.#closed) return;
    if (this.#inFlight.has(key)) {
      this.#pending.set(key, mergePushRequests(this.#pending.get(key), request));
      return;
    }
    const d = this.#draining.get(key);
    if (d) {
      d.request = mergePushRequests(d.request, request);
      return;
    }
    const q = this.#queued.get(key);
    if (q) q.request = mergePushRequests(q.request, request);
    else this.#queued.push(key, { request, enqueuedAt: this.#clock.now() });
    this.#pump();
  }

  /**
   * Forgets a connection (closed): drops its queued and pending requests and frees its slot now. Its
   * in-flight push may run out, or never settle: either way nothing waits for it any more.
   */
  remove(key: K): void {
    this.#queued.delete(key);
    this.#pending.delete(key);
    this.#draining.delete(key);
    const r = this.#inFlight.get(key);
    if (r) {
      this.#inFlight.delete(key);
      this.#release(r);
      this.#pump();
    }
    this.#checkIdle();
  }

  /** Connections waiting to be pushed (not counting in-flight ones). */
  get queued(): number {
    return this.#queued.size;
  }

  /** Pushes holding a slot now. */
  get running(): number {
    return this.#slots;
  }

  /** Pushes running without a slot (their proxy was slow to read), and connections waiting to drain. */
  get stalled(): number {
    return this.#inFlight.size - this.#slots + this.#draining.size;
  }

  /** The request queued for a connection, if any (merged). */
  queuedRequest(key: K): PushRequest | undefined {
    return this.#queued.get(key)?.request ?? this.#pending.get(key) ?? this.#draining.get(key)?.request;
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
    this.#draining.clear();
    this.#checkIdle();
  }

  #isIdle(): boolean {
    return this.#queued.size === 0 && this.#pending.size === 0 && this.#inFlight.size === 0 && this.#draining.size === 0;
  }

  /** Gives a running push's slot back (once). */
  #release(r: Running): void {
    r.timer?.();
    r.timer = undefined;
    if (r.slot) {
      r.slot = false;
      this.#slots--;
    }
  }

  /** Parks a connection whose earlier responses have not drained; it queues again when they have. */
  #park(key: K, q: Queued, drained: Promise<void>): void {
    this.#draining.set(key, q);
    const back = (): void => {
      const d = this.#draining.get(key);
      if (d !== q) return; // removed (closed) meanwhile
      this.#draining.delete(key);
      if (!this.#closed) this.#queued.push(key, d);
      this.#pump();
      this.#checkIdle();
    };
    drained.then(back, back);
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
    // NOTE: nextTurn (not a bare setImmediate): turned away by a slice pushes used, the pump resumes first.
    void nextTurn().then(() => {
      this.#deferred = false;
      this.#pump();
    });
    return false;
  }

  #pump(): void {
    while (!this.#closed && this.#slots < this.#opts.concurrency && this.#queued.size > 0 && this.#mayStart()) {
      const [key, q] = this.#queued.shift()!;
      const drained = this.#opts.drained?.(key);
      if (drained) {
        this.#park(key, q, drained);
        continue;
      }
      const running: Running = { slot: true, timer: undefined };
      this.#inFlight.set(key, running);
      this.#slots++;
      const hold = this.#opts.slotHoldMs;
      if (hold !== undefined && hold > 0) {
        running.timer = this.#clock.setTimer(() => {
          running.timer = undefined;
          this.#release(running);
          this.#pump();
        }, hold);
      }
      this.#opts.onDequeue?.(key, this.#clock.now() - q.enqueuedAt);
      let p: Promise<void>;
      try {
        p = this.#opts.push(key, q.request);
      } catch (e) {
        p = Promise.reject(e);
      }
      void p.catch((e: unknown) => this.#opts.onError?.(key, e)).finally(() => this.#done(key, running));
    }
  }

  #done(key: K, running: Running): void {
    this.#release(running);
    if (this.#inFlight.get(key) !== running) {
      // NOTE: the connection was removed while its push ran; its slot was freed then.
      this.#checkIdle();
      return;
    }
    this.#inFlight.delete(key);
    const next = this.#pending.get(key);
    if (next) {
      this.#pending.delete(key);
      if (!this.#closed) this.#queued.push(key, { request: next, enqueuedAt: this.#clock.now() });
    }
    this.#pump();
    this.#checkIdle();
  }
}
