/**
 * ConflictRecorder: the conflict gauges of the spec as istiod keeps them: each push context counts the
 * distinct conflicts its generators met (istiod's PushContext.AddMetric, keyed by the conflicting
 * listener, virtual host or cluster), and each gauge shows the count of the newest snapshot a proxy's
 * resources of the gauge's xDS type were built from. A conflict seen by every proxy of a namespace counts
 * once; a newer snapshot starts from zero, so a resolved conflict leaves the gauge once a proxy's resources
 * of that type are built from the snapshot without it.
 * NOTE: the gauges are grouped by the xDS type that meets them (LDS: listener conflicts; RDS: duplicate
 * domains; CDS: duplicate and DNS clusters without endpoints) and each group follows its own newest
 * snapshot: a push that rebuilds clusters only (a DestinationRule edit skips LDS and RDS) keeps the
 * listener and domain counts of the snapshot those were built from.
 */
import type { Metrics } from '../../../core/index.js';

/** The gauges LDS builds report: istiod's ProxyStatusConflictInboundListener and ProxyStatusConflictOutboundListenerTCPOverTCP. */
export const LISTENER_CONFLICT_METRICS = ['pilot_conflict_inbound_listener', 'pilot_conflict_outbound_listener_tcp_over_current_tcp'] as const;
/** The gauge RDS builds report: istiod's DuplicatedDomains (keyed by the virtual host `<host>:<port>` that lost a domain). */
export const ROUTE_CONFLICT_METRICS = ['pilot_vservice_dup_domain'] as const;
/** The gauges CDS builds report: istiod's DuplicatedClusters and DNSNoEndpointClusters (keyed by cluster name). */
export const CLUSTER_CONFLICT_METRICS = ['pilot_duplicate_dataplane_clusters', 'pilot_dns_cluster_without_endpoints'] as const;
/** Every conflict metric the sidecar builders report (names from the spec's metrics.json). */
export const CONFLICT_METRICS = [...LISTENER_CONFLICT_METRICS, ...ROUTE_CONFLICT_METRICS, ...CLUSTER_CONFLICT_METRICS] as const;
export type ConflictMetric = (typeof CONFLICT_METRICS)[number];

/** What a builder calls on a conflict: the metric and a key naming the conflict (distinct keys count). */
export type ConflictSink = (metric: ConflictMetric, key: string) => void;

/** One conflict a build met, kept with cached bytes to be reported again on a hit. */
export type Conflict = readonly [ConflictMetric, string];

/** See the file comment. */
export class ConflictRecorder {
  readonly #set: (metric: ConflictMetric, value: number) => void;
  /** Per metric: the newest snapshot token seen and its distinct keys. */
  readonly #seen = new Map<ConflictMetric, { token: number; keys: Set<string> }>();

  /** `set` writes one gauge (see conflictRecorderFrom). */
  constructor(set: (metric: ConflictMetric, value: number) => void) {
    this.#set = set;
    for (const m of CONFLICT_METRICS) this.#seen.set(m, { token: -1, keys: new Set() });
  }

  /** The sink for builds from the snapshot with `token`; builds from an older snapshot than the newest seen are not counted. */
  sink(token: number): ConflictSink {
    return (metric, key) => {
      if (!this.#advance(metric, token)) return;
      const keys = this.#seen.get(metric)!.keys;
      if (keys.has(key)) return;
      keys.add(key);
      this.#set(metric, keys.size);
    };
  }

  /**
   * Notes a build of the xDS type whose gauges are `metrics` (default the listener ones) from the snapshot
   * with `token`: a newer one than seen so far starts those counts from zero (so a build that meets no
   * conflict still clears an older snapshot's). False when the snapshot is older than the newest seen.
   */
  observe(token: number, metrics: readonly ConflictMetric[] = LISTENER_CONFLICT_METRICS): boolean {
    let newest = true;
    for (const m of metrics) newest = this.#advance(m, token) && newest;
    return newest;
  }

  /** Moves metric `m` to snapshot `token` (zero when newer); false for an older snapshot. */
  #advance(m: ConflictMetric, token: number): boolean {
    const s = this.#seen.get(m)!;
    if (token < s.token) return false;
    if (token > s.token) {
      if (s.keys.size > 0) this.#set(m, 0);
      this.#seen.set(m, { token, keys: new Set() });
    }
    return true;
  }
}

/** A ConflictRecorder writing the spec's gauges on `metrics`. */
export function conflictRecorderFrom(metrics: Metrics): ConflictRecorder {
  const gauges = new Map(CONFLICT_METRICS.map((m) => [m, metrics.gauge(m)] as const));
  return new ConflictRecorder((m, v) => gauges.get(m)!.set(v));
}
