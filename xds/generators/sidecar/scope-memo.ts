/**
 * ScopeMemo: what sidecars with the same Sidecar scope share within one push snapshot, as istiod caches
 * CDS and EDS per SidecarScope: the list of outbound cluster items (names and cache keys) and the load
 * assignment items by name, each with the encoded bytes once the first proxy of the scope resolved them
 * (cache hit or build). Without it every sidecar recomputes the same names, keys and cache lookups.
 * A part's name carries whatever else of the proxy its value depends on (its locality, and the
 * DestinationRules whose workloadSelector picks it: `PushContext.destinationRuleSelection`).
 *
 * Bound to the snapshot: entries live in a WeakMap keyed by the PushSnapshot the push carries, so an
 * entry is read only by pushes of the snapshot it was built from (never stale after a change, which
 * comes with a new snapshot) and is dropped with that snapshot.
 */
import type { PushSnapshot } from '../../../core/index.js';
import type { SidecarScope } from './sidecar-scope.js';

/** See the file comment. `V` is what one part holds (e.g. a list of items, or a map by name). */
export class ScopeMemo {
  readonly #bySnapshot = new WeakMap<PushSnapshot, WeakMap<SidecarScope, Map<string, unknown>>>();

  /** The value of `part` for a snapshot and scope, made by `make` on first use. */
  of<V>(snap: PushSnapshot, scope: SidecarScope, part: string, make: () => V): V {
    let byScope = this.#bySnapshot.get(snap);
    if (!byScope) this.#bySnapshot.set(snap, (byScope = new WeakMap()));
    let parts = byScope.get(scope);
    if (!parts) byScope.set(scope, (parts = new Map()));
    if (!parts.has(part)) parts.set(part, make());
    return parts.get(part) as V;
  }
}
