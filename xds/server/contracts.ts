/**
 * The seam between the ADS transport (this folder) and whatever produces resources.
 *
 * The transport owns streams, nonces, versions, ACK/NACK, subscriptions and the push queue. It knows
 * nothing of mesh config: it asks a `ResourceGenerator` for the resources of one type for one proxy,
 * and learns that proxies need new config from a stream of `PushRequest`s.
 */
import type { NodeType, Proxy, ProxyNode, PushRequest } from '../../core/index.js';

// Type URLs live in the proto layer (pilot-agent uses them too); push order and wildcards in xds-types.ts.
export { TYPE_URL, type TypeUrl } from '../protos/index.js';
export { PUSH_ORDER, WILDCARD_TYPES, XDS_TYPES, xdsType, type XdsTypeDescriptor } from './xds-types.js';

// The parsed node lives in core's model, which both the transport and the generators read.
export { NODE_TYPES, type NodeType, type ProxyNode } from '../../core/index.js';

/**
 * The names a proxy subscribed to (a Set, or the transport's shared table, see shared-table.ts). Read-only:
 * the transport may hand one object to many proxies.
 */
export interface WatchedNames extends Iterable<string> {
  has(name: string): boolean;
  readonly size: number;
  /** The names sorted, when the object keeps them (a shared table computes them once). */
  sorted?(): readonly string[];
}

/** The names sorted (computed once per shared table). */
export function sortedNames(names: WatchedNames): readonly string[] {
  return names.sorted?.() ?? [...names].sort();
}

/** What one proxy has asked for of one type. */
export interface WatchedResource {
  readonly typeUrl: string;
  /** Names subscribed to. Empty with `wildcard` means everything. */
  readonly names: WatchedNames;
  readonly wildcard: boolean;
  /**
   * True when the transport sends deltas (delta xDS with MESH_DELTA_XDS): a push's result may then hold only
   * what changed (`incremental`, with `removed`) for every type, the full-state LDS and CDS included.
   */
  readonly delta?: boolean;
}

/** One encoded resource. `body` is the encoded message itself (not wrapped in Any). */
export interface GeneratedResource {
  readonly name: string;
  readonly body: Uint8Array;
  /**
   * Optional version of this resource (delta xDS `Resource.version`), e.g. a cache key's hash. When
   * absent the transport hashes `body` (once per distinct Uint8Array).
   */
  readonly version?: string;
}

export interface GenerateResult {
  readonly resources: readonly GeneratedResource[];
  /**
   * Delta only: names the generator knows were removed. For state of the world the transport
   * works removals out itself from the names it sent last time.
   */
  readonly removed?: readonly string[];
  /**
   * True when `resources` holds only the resources this push changed (an endpoint-only push sends the
   * load assignments of the changed services, as istiod's incremental EDS does): the proxy keeps what it
   * holds of the others. SotW honours it only for types that are not full-state (EDS, RDS; never the
   * wildcard LDS/CDS, where a left-out resource means removed) and only on pushes, not on answers to a
   * request; an incremental push with nothing in it sends nothing. Delta removes only `removed`, and a
   * generator returns an incremental LDS or CDS only to a watch marked `delta`.
   */
  readonly incremental?: boolean;
}

/**
 * Produces resources for proxies. `P` is the generator's own per-proxy state (opaque to the transport).
 */
export interface ResourceGenerator<P = unknown> {
  /** Called once per connection after the node is parsed. Throw to refuse the proxy (FAILED_PRECONDITION). */
  initProxy(node: ProxyNode): P | Promise<P>;
  /** Called when a connection closes. */
  closeProxy?(proxy: P): void;
  /** Whether this push may change resources of this type for this proxy (Istio's `needsPush`). */
  needsPush(proxy: P, typeUrl: string, push: PushRequest): boolean;
  /**
   * Builds the resources of one type for one proxy. Return `undefined` for a type this generator does
   * not serve: the transport then answers a request with an empty response, and skips the type on pushes.
   * `watched` is live transport state: read it during the call, do not keep it. For subscriptions by name
   * the transport drops resources that were not asked for, so returning more is harmless.
   */
  generate(proxy: P, watched: WatchedResource, push: PushRequest): GenerateResult | undefined | Promise<GenerateResult | undefined>;
}

/**
 * Builds the resources of one xDS type for one kind of proxy, registered in a `GeneratorRegistry` under
 * the kind it serves. Reads only the snapshot the push carries.
 */
export interface TypeGenerator {
  readonly typeUrl: string;
  /**
   * Config kinds that cannot change this generator's resources, on top of its type's descriptor (e.g. a
   * Sidecar resource does not shape a proxyless client's clusters). Used by the default `needsPush`.
   */
  readonly unaffectedKinds?: ReadonlySet<string>;
  /** Replaces the default rule (descriptor + `unaffectedKinds`) of whether a push may change this type for this proxy. */
  needsPush?(proxy: Proxy, push: PushRequest): boolean;
  /** As `ResourceGenerator.generate`, for this type; `undefined` = not served. */
  generate(proxy: Proxy, watched: WatchedResource, push: PushRequest): GenerateResult | undefined | Promise<GenerateResult | undefined>;
}

/**
 * Which proxies a TypeGenerator serves, as istiod keys its generators: by the node's `GENERATOR` metadata
 * (e.g. `grpc` for proxyless gRPC), else by proxy type (`sidecar`, `router`), else for every proxy.
 */
export type GeneratorScope = { readonly generator: string } | { readonly proxyType: NodeType } | { readonly any: true };
