import type { Clock } from '../../core/index.js';

/** An item handed out by {@link WorkQueue.get}. */
export interface QueueItem {
  readonly key: string;
  /** How long the key waited between being added (or falling due) and being handed out, ms. */
  readonly waitedMs: number;
}

/**
 * A per-key work queue like client-go's: a key queued several times is processed once (dedup); a key
 * added while it is being processed is queued again when {@link WorkQueue.done} is called, so one key is
 * never processed twice at once. Delayed adds keep only the earliest due time per key.
 */
export class WorkQueue {
  readonly #clock: Clock;
  readonly #onReady: () => void;
  #queue: string[] = [];
  readonly #dirty = new Map<string, number>();
  readonly #processing = new Set<string>();
  readonly #delayed = new Map<string, { at: number; cancel: () => void }>();
  #closed = false;

  /** @param onReady called whenever a key becomes available to {@link WorkQueue.get} */
  constructor(clock: Clock, onReady: () => void) {
    this.#clock = clock;
    this.#onReady = onReady;
  }

  /** Keys waiting to be handed out. */
  get depth(): number {
    return this.#queue.length;
  }

  /** Keys being processed. */
  get inFlight(): number {
    return this.#processing.size;
  }

  /** Keys waiting for a delayed add to fall due. */
  get delayed(): number {
    return this.#delayed.size;
  }

  /** Queues `key` now (a no-op when it is already queued or the queue is shut down). */
  add(key: string): void {
    if (this.#closed || this.#dirty.has(key)) return;
    this.#dirty.set(key, this.#clock.now());
    if (this.#processing.has(key)) return;
    this.#queue.push(key);
    this.#onReady();
  }

  /** Queues `key` after `delayMs`; an earlier pending delayed add of the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.#closed) return;
    if (!(delayMs > 0)) {
      this.add(key);
      return;
    }
    const at = this.#clock.now() + delayMs;
    const pending = this.#delayed.get(key);
    if (pending && pending.at <= at) return;
    pending?.cancel();
    const cancel = this.#clock.setTimer(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.#delayed.set(key, { at, cancel });
  }

  /** Hands out the next key and marks it processing, or undefined when none is queued. */
  get(): QueueItem | undefined {
    const key = this.#queue.shift();
    if (key === undefined) return undefined;
    const addedAt = this.#dirty.get(key) ?? this.#clock.now();
    this.#dirty.delete(key);
    this.#processing.add(key);
    return { key, waitedMs: this.#clock.now() - addedAt };
  }

  /** Marks `key` processed; when it was added again meanwhile, it is queued again. */
  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key) && !this.#closed) {
      this.#queue.push(key);
      this.#onReady();
    }
  }

  /** Drops every queued and delayed key; later adds are ignored. */
  shutDown(): void {
    this.#closed = true;
    for (const { cancel } of this.#delayed.values()) cancel();
    this.#delayed.clear();
    this.#queue = [];
    this.#dirty.clear();
  }
}
