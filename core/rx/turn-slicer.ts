/**
 * TurnSlicer: keeps one turn of the event loop short when work runs as chains of promises (which never
 * give the loop a turn). The first check of a turn starts a slice and schedules its end with
 * `setImmediate`; once a slice has run `sliceMs`, `overBudget()` is true until the loop has turned, and
 * callers `await nextTurn()` so reads, writes and timers get their turn.
 *
 * Fair between chains (round robin): the chain that used up a turn's slice is resumed after the chains
 * that the same turn turned away without any work (they were told to yield by a slice another chain
 * used). So two chains that both have work take whole slices in turns. NOTE: before, every yielding chain
 * resumed in the order it yielded, so the chain that ran first took every slice and the others starved
 * for as long as it had work.
 *
 * @example
 * for (const item of items) {
 *   work(item);
 *   if (slicer.overBudget()) await nextTurn();
 * }
 */

/** Chains to resume on the next turn: those turned away without work first, then those that worked. */
let turnedAway: (() => void)[] = [];
let worked: (() => void)[] = [];
let resumeScheduled = false;
/** What the latest `overBudget()` that said true said of its caller: turned away without work. */
let lastTurnedAway = false;

function resumeWaiters(): void {
  resumeScheduled = false;
  const all = [...turnedAway, ...worked];
  turnedAway = [];
  worked = [];
  for (const resolve of all) resolve();
}

/**
 * Resolves on the next turn of the event loop (after pending I/O callbacks). Right after a TurnSlicer's
 * `overBudget()` said true, the caller is queued fairly (see the file comment).
 */
export function nextTurn(): Promise<void> {
  const first = lastTurnedAway;
  lastTurnedAway = false;
  return new Promise<void>((resolve) => {
    (first ? turnedAway : worked).push(resolve);
    if (!resumeScheduled) {
      resumeScheduled = true;
      setImmediate(resumeWaiters);
    }
  });
}

/** See the file comment. Share one instance between the chains that should take turns. */
export class TurnSlicer {
  readonly #sliceMs: number;
  readonly #now: () => number;
  #open = false;
  #start = 0;
  /** True once this turn's slice has been reported used up (later callers did no work in it). */
  #spent = false;

  /**
   * `sliceMs`: the longest slice of one turn, in milliseconds (> 0). `now`: a monotonic reading in
   * milliseconds (tests pass a virtual one); default `performance.now`.
   */
  constructor(sliceMs: number, now: () => number = () => performance.now()) {
    if (!(sliceMs > 0)) throw new RangeError(`TurnSlicer: sliceMs must be positive (got ${sliceMs})`);
    this.#sliceMs = sliceMs;
    this.#now = now;
  }

  /** True when this turn's slice has used its budget (the caller should `await nextTurn()`). */
  overBudget(): boolean {
    const now = this.#now();
    lastTurnedAway = false;
    if (!this.#open) {
      this.#open = true;
      this.#start = now;
      this.#spent = false;
      setImmediate(() => {
        this.#open = false;
      });
      return false;
    }
    if (now - this.#start <= this.#sliceMs) return false;
    // NOTE: the first caller to hear it ran the slice; a later one in this turn got none of it.
    lastTurnedAway = this.#spent;
    this.#spent = true;
    return true;
  }
}

/**
 * The longest slice of the xDS push path (ms).
 * NOTE: long on purpose. Every turn the loop takes during a fan-out also reads the replies (ACKs) of the proxies
 * written so far, before the rest are written. Pushing one endpoint change to 2,000 sidecars (bench:xds
 * `--case large-mesh`, delta), a 20 ms slice had the last response flushed 228-280 ms after publication, a 250 ms
 * slice 129-148 ms; the slowest client of each edit (median over 8 edits) gained 50-70 ms. At 100-400 proxies the
 * two were within the noise of each other. The loop still turns at least every quarter second.
 */
const PUSH_PATH_SLICE_MS = 250;

/** The process-wide slicer of the xDS push path. */
export const pushPathSlicer = new TurnSlicer(PUSH_PATH_SLICE_MS);
