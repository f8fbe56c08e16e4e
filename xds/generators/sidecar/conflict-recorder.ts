/**
 * ConflictRecorder: the listener conflict gauges of the spec (`pilot_conflict_inbound_listener`,
 * `pilot_conflict_outbound_listener_tcp_over_current_tcp`) as istiod keeps them: each push context
 * counts the distinct conflicts its generators met (istiod's PushContext.AddMetric, keyed by the
 * conflicting listener), and the gauge shows the count of the newest snapshot a proxy was built from. A
 * conflict seen by every proxy of a namespace counts once; a newer snapshot starts from zero, so a
 * resolved conflict leaves the gauge once a proxy is built from the snapshot without it.
 */
import type { Metrics } from '../../../core/index.js';

/** The conflict metrics the listener builders report (names from the spec's metrics.json). */
export const CONFLICT_METRICS = ['pilot_conflict_inbound_listener', 'pilot_conflict_outbound_listener_tcp_over_current_tcp'] as const;
export type ConflictMetric = (typeof CONFLICT_METRICS)[number];

/** What a builder calls on a conflict: the metric and a key naming the conflict (distinct keys count). */
export type ConflictSink = (metric: ConflictMetric, key: string) => void;

/** See the file comment. */
export class ConflictRecorder {
  readonly #set: (metric: ConflictMetric, value: number) => void;
  #token = -1;
  readonly #seen = new Map<ConflictMetric, Set<string>>();

  /** `set` writes one gauge (see conflictRecorderFrom). */
  constructor(set: (metric: ConflictMetric, value: number) => void) {
    this.#set = set;
  }

  /** The sink for builds from the snapshot with `token`; builds from an older snapshot than the newest seen are not counted. */
  sink(token: number): ConflictSink {
    return (metric, key) => {
      if (!this.observe(token)) return;
      const keys = this.#seen.get(metric)!;
      if (keys.has(key)) return;
      keys.add(key);
      this.#set(metric, keys.size);
    };
  }

  /**
   * Notes a build from the snapshot with `token`: a newer one than seen so far starts every count from
   * zero (so a build that meets no conflict still clears an older snapshot's). False for an older one.
   */
  observe(token: number): boolean {
    if (token < this.#token) return false;
    if (token > this.#token) {
      this.#token = token;
      for (const m of CONFLICT_METRICS) {
        if ((this.#seen.get(m)?.size ?? 0) > 0) this.#set(m, 0);
        this.#seen.set(m, new Set());
      }
    }
    return true;
  }
}

/** A ConflictRecorder writing the spec's gauges on `metrics`. */
export function conflictRecorderFrom(metrics: Metrics): ConflictRecorder {
  const gauges = new Map(CONFLICT_METRICS.map((m) => [m, metrics.gauge(m)] as const));
  return new ConflictRecorder((m, v) => gauges.get(m)!.set(v));
}
