/**
 * TurnSlicer: keeps one turn of the event loop short when work runs as chains of promises (which never
 * give the loop a turn). The first check of a turn starts a slice and schedules its end with
 * `setImmediate`; once a slice has run `sliceMs`, `overBudget()` is true until the loop has turned, and
 * callers `await nextTurn()` (or defer with `setImmediate`) so reads, writes and timers get their turn.
 *
 * @example
 * for (const item of items) {
 *   work(item);
 *   if (slicer.overBudget()) await nextTurn();
 * }
 */

/** Resolves on the next turn of the event loop (after pending I/O callbacks). */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** See the file comment. Share one instance between the chains that should take turns. */
export class TurnSlicer {
  readonly #sliceMs: number;
  #open = false;
  #start = 0;

  /** `sliceMs`: the longest slice of one turn, in milliseconds (> 0). */
  constructor(sliceMs: number) {
    if (!(sliceMs > 0)) throw new RangeError(`TurnSlicer: sliceMs must be positive (got ${sliceMs})`);
    this.#sliceMs = sliceMs;
  }

  /** True when this turn's slice has used its budget (the caller should yield). */
  overBudget(): boolean {
    const now = performance.now();
    if (!this.#open) {
      this.#open = true;
      this.#start = now;
      setImmediate(() => {
        this.#open = false;
      });
      return false;
    }
    return now - this.#start > this.#sliceMs;
  }
}

/** The process-wide slicer of the xDS push path (20 ms slices). */
export const pushPathSlicer = new TurnSlicer(20);
