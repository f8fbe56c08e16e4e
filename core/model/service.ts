/**
 * The mesh model of services and their endpoints, independent of where they came from
 * (ServiceEntry, WorkloadEntry, later the orchestrator registry).
 */
import { isIP } from 'node:net';

/** Port protocols as Istio names them (ServicePort.protocol). */
export const PROTOCOLS = ['HTTP', 'HTTPS', 'GRPC', 'GRPC-WEB', 'HTTP2', 'MONGO', 'REDIS', 'MYSQL', 'TCP', 'TLS', 'UDP', 'UNSUPPORTED'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** Turns a protocol name as written in config (any case) into a Protocol; unknown names give UNSUPPORTED. */
export function parseProtocol(text: string | undefined): Protocol {
  const up = (text ?? '').toUpperCase();
  return (PROTOCOLS as readonly string[]).includes(up) ? (up as Protocol) : 'UNSUPPORTED';
}

/** A service port. */
export interface ServicePort {
  readonly name: string;
  readonly port: number;
  readonly protocol: Protocol;
  /** Port on the endpoints; equals `port` when the config gives none. */
  readonly targetPort?: number;
}

/** How the addresses of a service are found (ServiceEntry.resolution). */
export const RESOLUTIONS = ['NONE', 'STATIC', 'DNS', 'DNS_ROUND_ROBIN'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** Whether a service is inside the mesh (ServiceEntry.location). */
export const LOCATIONS = ['MESH_EXTERNAL', 'MESH_INTERNAL'] as const;
export type Location = (typeof LOCATIONS)[number];

/** A service: one host name with ports. Immutable. */
export interface Service {
  /** Fully qualified host name, e.g. `reviews.default.svc.cluster.local`. */
  readonly hostname: string;
  readonly namespace: string;
  readonly ports: readonly ServicePort[];
  readonly resolution: Resolution;
  readonly location: Location;
  readonly labels: Readonly<Record<string, string>>;
  /** Virtual IPs (ServiceEntry.addresses). */
  readonly addresses: readonly string[];
  /** Namespaces the service is visible to: `*` (all), `.` (own) or names. */
  readonly exportTo: readonly string[];
  /** Service accounts (SPIFFE identities) expected on the endpoints, e.g. from `subjectAltNames`. */
  readonly serviceAccounts: readonly string[];
  /** The config that defined it (`ServiceEntry/ns/name`), for dependency tracking. */
  readonly source: string;
  /** RFC 3339 creation time of the source, for oldest-wins tie-breaks. */
  readonly creationTimestamp: string;
  /**
   * True when a ServiceEntry's `workloadSelector` gives the endpoints: only the selected workloads, never the host
   * itself (istiod resolves the host of a DNS entry only without endpoints and without a selector).
   */
  readonly selectsWorkloads?: true;
}

/** The name prefix of the ServiceEntries the orchestrator registry makes of orchestrator Services (`orch:<name>`). */
export const ORCH_NAME_PREFIX = 'orch:';

/**
 * The orchestrator Service a service was made from (its name and namespace), or undefined for a service
 * a ServiceEntry declares.
 */
export function orchServiceOf(svc: Pick<Service, 'source' | 'namespace'>): { name: string; namespace: string } | undefined {
  const prefix = `ServiceEntry/${svc.namespace}/${ORCH_NAME_PREFIX}`;
  return svc.source.startsWith(prefix) ? { name: svc.source.slice(prefix.length), namespace: svc.namespace } : undefined;
}

/** Locality of a workload: `region/zone/subzone`, each part optional. */
export interface Locality {
  readonly region: string;
  readonly zone: string;
  readonly subZone: string;
}

/** Parses `region/zone/subzone` (any part may be empty or missing). */
export function parseLocality(text: string | undefined): Locality {
  const [region = '', zone = '', subZone = ''] = (text ?? '').split('/');
  return { region, zone, subZone };
}

/** The string form `region/zone/subzone` (trailing empty parts dropped). */
export function localityString(l: Locality): string {
  return [l.region, l.zone, l.subZone].join('/').replace(/\/+$/, '');
}

/** Endpoint health as sent in EDS. */
export const HEALTH_STATUSES = ['HEALTHY', 'UNHEALTHY', 'DRAINING'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/**
 * One endpoint of one service port (Istio's IstioEndpoint / ServiceInstance). Immutable.
 */
export interface ServiceInstance {
  /** The service host name this instance belongs to. */
  readonly hostname: string;
  /** The service port number (not the endpoint port). */
  readonly servicePort: number;
  readonly servicePortName: string;
  /** IP literal. */
  readonly address: string;
  readonly port: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly locality: Locality;
  /** Load-balancing weight, at least 1. */
  readonly weight: number;
  readonly serviceAccount: string;
  readonly network: string;
  readonly health: HealthStatus;
  /** The config the endpoint came from (`ServiceEntry/..`, `WorkloadEntry/..`). */
  readonly source: string;
}

/** The key of a service in indexes: its host name. */
export function serviceKey(s: Pick<Service, 'hostname'>): string {
  return s.hostname;
}

/** Whether every label of `selector` is present with the same value in `labels`. Empty selects all. */
export function labelsMatch(selector: Readonly<Record<string, string>> | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (!selector) return true;
  for (const k in selector) if (labels[k] !== selector[k]) return false;
  return true;
}

/**
 * Matches a host name against a host pattern: exact, or `*` / `*.suffix` wildcards as Istio allows.
 */
export function hostMatches(pattern: string, host: string): boolean {
  if (pattern === '*') return true;
  if (pattern.startsWith('*')) return host.endsWith(pattern.slice(1));
  return pattern === host;
}

/**
 * Resolves a short host as Istio does for configs in `namespace` (ResolveShortnameToFQDN): `reviews`
 * (no dot) becomes `reviews.<namespace>.svc.<domain>`, and so does a wildcard label alone (`*reviews`
 * becomes `*reviews.<namespace>.svc.<domain>`); `*`, IP addresses and anything with a dot stay as they are.
 */
export function resolveShortName(host: string, namespace: string, domain: string): string {
  if (host === '*' || host.includes('.') || isIP(host) !== 0) return host;
  return `${host}.${namespace}.svc.${domain}`;
}
