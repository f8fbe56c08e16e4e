/**
 * The seam between the ADS transport (this folder) and whatever produces resources.
 *
 * The transport owns streams, nonces, versions, ACK/NACK, subscriptions and the push queue. It knows
 * nothing of mesh config: it asks a `ResourceGenerator` for the resources of one type for one proxy,
 * and learns that proxies need new config from a stream of `PushRequest`s.
 */
import type { ProxyNode, PushRequest } from '../../core/index.js';

/** Full type URLs of the xDS types meshd serves. */
export const TYPE_URL = {
  cluster: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  endpoint: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
  listener: 'type.googleapis.com/envoy.config.listener.v3.Listener',
  route: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
  secret: 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret',
  extensionConfig: 'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig',
} as const;
export type TypeUrl = (typeof TYPE_URL)[keyof typeof TYPE_URL];

/** Envoy's push order: clusters before endpoints before listeners before routes. */
export const PUSH_ORDER: readonly TypeUrl[] = [TYPE_URL.cluster, TYPE_URL.endpoint, TYPE_URL.listener, TYPE_URL.route];

// The parsed node lives in core's model, which both the transport and the generators read.
export { NODE_TYPES, type NodeType, type ProxyNode } from '../../core/index.js';

/** What one proxy has asked for of one type. */
export interface WatchedResource {
  readonly typeUrl: string;
  /** Names subscribed to. Empty with `wildcard` means everything. */
  readonly names: ReadonlySet<string>;
  readonly wildcard: boolean;
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
