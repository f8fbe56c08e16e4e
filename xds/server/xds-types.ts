/**
 * One descriptor per xDS type: whether an empty first request means everything (legacy wildcard), where
 * the type goes in the push order, whether an endpoint-only push carries it, and which config kinds can
 * never change it for any kind of proxy (each generator may add kinds that cannot change its own
 * resources, e.g. a Sidecar resource shapes Envoy clusters but not a proxyless client's).
 */
import { TYPE_URL, type TypeUrl } from '../protos/index.js';

/** What the transport and `needsPush` know of one xDS type. */
export interface XdsTypeDescriptor {
  readonly typeUrl: TypeUrl;
  /** Short name for logs and metrics labels (`cds`, `eds`, ...). */
  readonly short: string;
  /** An empty first request subscribes to everything (LDS and CDS in SotW). */
  readonly wildcard: boolean;
  /** Position in the push order; types without one come after, in the order they were first asked for. */
  readonly order?: number;
  /** Whether an endpoint-only push (`full: false`) carries this type. */
  readonly endpointPush: boolean;
  /** Config kinds that cannot change this type's resources for any proxy (Istio's skipped configs). */
  readonly unaffectedKinds: ReadonlySet<string>;
}

const NOT_XDS = ['Telemetry', 'WasmPlugin', 'ProxyConfig'] as const;

/** The descriptors, in push order (Envoy warms clusters and their endpoints before listeners and routes). */
export const XDS_TYPES: readonly XdsTypeDescriptor[] = [
  {
    typeUrl: TYPE_URL.cluster,
    short: 'cds',
    wildcard: true,
    order: 0,
    endpointPush: false,
    unaffectedKinds: new Set(['Gateway', 'WorkloadEntry', 'WorkloadGroup', 'AuthorizationPolicy', 'RequestAuthentication', 'Secret', ...NOT_XDS]),
  },
  {
    typeUrl: TYPE_URL.endpoint,
    short: 'eds',
    wildcard: false,
    order: 1,
    endpointPush: true,
    unaffectedKinds: new Set(['VirtualService', 'AuthorizationPolicy', 'RequestAuthentication', 'PeerAuthentication', 'Gateway', ...NOT_XDS]),
  },
  {
    typeUrl: TYPE_URL.listener,
    short: 'lds',
    wildcard: true,
    order: 2,
    endpointPush: false,
    unaffectedKinds: new Set(['WorkloadEntry', 'WorkloadGroup', ...NOT_XDS]),
  },
  {
    typeUrl: TYPE_URL.route,
    short: 'rds',
    wildcard: false,
    order: 3,
    endpointPush: false,
    unaffectedKinds: new Set(['WorkloadEntry', 'WorkloadGroup', 'AuthorizationPolicy', 'RequestAuthentication', 'PeerAuthentication', ...NOT_XDS]),
  },
  { typeUrl: TYPE_URL.secret, short: 'sds', wildcard: false, endpointPush: false, unaffectedKinds: new Set() },
  { typeUrl: TYPE_URL.extensionConfig, short: 'ecds', wildcard: false, endpointPush: false, unaffectedKinds: new Set() },
  {
    // NOTE: one unnamed resource; host names and addresses change only with services and the Sidecar scope.
    typeUrl: TYPE_URL.nameTable,
    short: 'nds',
    wildcard: true,
    endpointPush: false,
    unaffectedKinds: new Set(['VirtualService', 'DestinationRule', 'Gateway', 'EnvoyFilter', 'WorkloadGroup', 'AuthorizationPolicy', 'RequestAuthentication', 'PeerAuthentication', 'Secret', ...NOT_XDS]),
  },
];

const BY_URL: ReadonlyMap<string, XdsTypeDescriptor> = new Map(XDS_TYPES.map((d) => [d.typeUrl, d]));

/** The descriptor of a type URL, if meshd knows the type. */
export function xdsType(typeUrl: string): XdsTypeDescriptor | undefined {
  return BY_URL.get(typeUrl);
}

/** Envoy's push order: clusters before endpoints before listeners before routes. */
export const PUSH_ORDER: readonly TypeUrl[] = XDS_TYPES.filter((d) => d.order !== undefined)
  .sort((a, b) => a.order! - b.order!)
  .map((d) => d.typeUrl);

/** Types where an empty first request means "everything" (legacy wildcard). */
export const WILDCARD_TYPES: ReadonlySet<string> = new Set(XDS_TYPES.filter((d) => d.wildcard).map((d) => d.typeUrl));
