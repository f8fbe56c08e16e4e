/**
 * Where the time of a push goes, seen from the server: for each snapshot pushed (a debounced push, not a
 * proxy's own request), the times from the change entering the model (`PushRequest.start`) to the push
 * leaving the debounce, to the first and the last response handed to grpc-js, and to the last write
 * callback (the bytes left meshd's buffers). One summary per push once the push queue is idle and every
 * write has completed, logged at info (counts and times, never a line per proxy).
 */
import type { Clock, PushRequest } from '../../core/index.js';

/** The summary of one push's fan-out; times in ms from the first change the push carries. */
export interface PushTraceSummary {
  /** The token of the snapshot the push read. */
  readonly token: number;
  readonly full: boolean;
  /** Connections the push was queued for. */
  readonly proxies: number;
  /** Responses written from this snapshot by pushes (not by proxies' own requests), and their bytes. */
  readonly responses: number;
  readonly bytes: number;
  /** The push left the debounce (the model published its snapshot). */
  readonly publishedMs: number;
  readonly firstWriteMs: number | undefined;
  readonly lastWriteMs: number | undefined;
  /** The last write callback; undefined while some were outstanding when the summary was cut short. */
  readonly lastFlushMs: number | undefined;
  /** Writes whose callback had not come when the summary was made (a proxy that reads nothing). */
  readonly unflushed: number;
  /** When the summary was made (with the log line's time, this places the change on the wall clock). */
  readonly atMs: number;
}

interface Open {
  readonly token: number;
  readonly full: boolean;
  readonly start: number;
  proxies: number;
  publishedAt: number;
  responses: number;
  bytes: number;
  firstWriteAt: number | undefined;
  lastWriteAt: number | undefined;
  lastFlushAt: number | undefined;
  outstanding: number;
  idle: boolean;
}

/** At most this many pushes are followed at once; past it the oldest is reported as it stands. */
const MAX_OPEN = 8;

/** Follows pushes by snapshot token; see the file comment. Cheap per response: a map lookup and two clock reads. */
export class PushTraces {
  readonly #open = new Map<number, Open>();
  readonly #clock: Clock;
  readonly #report: (s: PushTraceSummary) => void;

  constructor(clock: Clock, report: (s: PushTraceSummary) => void) {
    this.#clock = clock;
    this.#report = report;
  }

  /** A push was queued for `proxies` connections (call when it leaves the model; forced pushes are not followed). */
  begin(push: PushRequest, proxies: number): void {
    const token = push.snapshot?.token;
    if (token === undefined || push.forced) return;
    const now = this.#clock.now();
    const o = this.#open.get(token);
    if (o) {
      o.proxies += proxies;
      o.idle = false;
      return;
    }
    this.#open.set(token, {
      token, full: push.full, start: push.start, proxies, publishedAt: now, responses: 0, bytes: 0,
      firstWriteAt: undefined, lastWriteAt: undefined, lastFlushAt: undefined, outstanding: 0, idle: false,
    });
    if (this.#open.size > MAX_OPEN) this.#finish(this.#open.values().next().value!);
  }

  /**
   * A response of `push` is being handed to grpc-js; returns what to call when its write completes (or
   * fails), or undefined when the push is not followed (a proxy's own request, an unknown snapshot).
   */
  wrote(push: PushRequest, bytes: number): (() => void) | undefined {
    const token = push.snapshot?.token;
    if (token === undefined || push.forced) return undefined;
    const o = this.#open.get(token);
    if (!o) return undefined;
    const now = this.#clock.now();
    o.firstWriteAt ??= now;
    o.lastWriteAt = now;
    o.responses++;
    o.bytes += bytes;
    o.outstanding++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      o.outstanding--;
      o.lastFlushAt = this.#clock.now();
      if (o.idle && o.outstanding === 0) this.#finish(o);
    };
  }

  /** The push queue is idle: every followed push whose writes all completed is reported; the others when they do. */
  idle(): void {
    for (const o of [...this.#open.values()]) {
      o.idle = true;
      if (o.outstanding === 0) this.#finish(o);
    }
  }

  #finish(o: Open): void {
    if (this.#open.get(o.token) !== o) return;
    this.#open.delete(o.token);
    const rel = (t: number | undefined): number | undefined => (t === undefined ? undefined : Math.round((t - o.start) * 10) / 10);
    this.#report({
      token: o.token, full: o.full, proxies: o.proxies, responses: o.responses, bytes: o.bytes,
      publishedMs: rel(o.publishedAt)!, firstWriteMs: rel(o.firstWriteAt), lastWriteMs: rel(o.lastWriteAt),
      lastFlushMs: o.outstanding === 0 ? rel(o.lastFlushAt) : undefined, unflushed: o.outstanding, atMs: rel(this.#clock.now())!,
    });
  }
}
