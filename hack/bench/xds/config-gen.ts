/**
 * The benchmark's mesh config: pure functions that turn a size (services, namespaces, endpoints per
 * service) and the edits applied so far into `networking.mesh.io/v1` YAML files, one file per service
 * (ServiceEntry, its WorkloadEntry endpoints, a VirtualService and a DestinationRule), spread over
 * `ns-0 .. ns-<n-1>`. Field layouts follow Istio's v1 APIs (see `examples/quickstart/`).
 */
import { stringify } from 'yaml';

/** The port every generated service serves (gRPC). */
export const SERVICE_PORT = 8080;
/** The DNS domain of generated host names. */
export const DOMAIN = 'cluster.local';
/** The header the VirtualService edit matches on; its value is the marker. */
export const MARKER_HEADER = 'x-bench-marker';
/** The header that selects a pre-referenced subset (its value is the subset name). */
export const SUBSET_HEADER = 'x-bench-subset';

/** Size of the generated mesh. */
export interface MeshSize {
  readonly services: number;
  /** Default 10. */
  readonly namespaces: number;
  /** WorkloadEntries per service; default 2 (versions v1 and v2 alternate). */
  readonly endpointsPerService: number;
}

/** One generated service. */
export interface BenchService {
  readonly index: number;
  readonly name: string;
  readonly namespace: string;
  /** Fully qualified host, `svc-<i>.ns-<k>.svc.cluster.local`. */
  readonly host: string;
}

/** Edits applied to one service so far (all empty at start). */
export interface ServiceEdits {
  /** Header-match values added to the VirtualService by VirtualService edits (newest last). */
  readonly vsMarkers: readonly string[];
  /** Subset names the VirtualService routes to by header before the DestinationRule defines them. */
  readonly plannedSubsets: readonly string[];
  /** Subsets added to the DestinationRule (subset of `plannedSubsets`). */
  readonly addedSubsets: readonly string[];
  /** Replacement address and weight of the first WorkloadEntry, from endpoint edits. */
  readonly endpoint?: { readonly address: string; readonly weight: number };
}

/** No edits. */
export const NO_EDITS: ServiceEdits = { vsMarkers: [], plannedSubsets: [], addedSubsets: [] };

/** The i-th service of a mesh with `namespaces` namespaces. */
export function benchService(index: number, namespaces: number): BenchService {
  const namespace = `ns-${index % namespaces}`;
  const name = `svc-${index}`;
  return { index, name, namespace, host: `${name}.${namespace}.svc.${DOMAIN}` };
}

/** A service created by a "new ServiceEntry" edit; its name is the marker. */
export function newService(marker: string, namespace = 'ns-0'): BenchService {
  return { index: -1, name: marker, namespace, host: `${marker}.${namespace}.svc.${DOMAIN}` };
}

/**
 * The address of endpoint `e` of service `i`: `10.<1+i/65536>.<(i/256)%256>.<i%256>` shifted per endpoint,
 * unique for up to 2^22 endpoints in all and never in `10.250.0.0/16` (kept for edit markers).
 */
export function endpointAddress(service: number, endpoint: number, endpointsPerService: number): string {
  const n = service * endpointsPerService + endpoint;
  const a = 1 + Math.floor(n / 65536);
  if (a >= 250) throw new RangeError(`endpoint ${endpoint} of service ${service}: too many endpoints for 10.1.0.0-10.249.255.255`);
  return `10.${a}.${Math.floor(n / 256) % 256}.${n % 256}`;
}

/** The listener name a proxyless client asks for to call a service (`<host>:<port>`). */
export function listenerName(s: BenchService): string {
  return `${s.host}:${SERVICE_PORT}`;
}

/** One config document (a plain object, as parsed from YAML). */
export type Doc = Record<string, unknown>;

function meta(name: string, namespace: string): Doc {
  return { name, namespace };
}

function serviceEntry(s: BenchService): Doc {
  return {
    apiVersion: 'networking.mesh.io/v1',
    kind: 'ServiceEntry',
    metadata: meta(s.name, s.namespace),
    spec: {
      hosts: [s.host],
      location: 'MESH_INTERNAL',
      ports: [{ number: SERVICE_PORT, name: 'grpc', protocol: 'GRPC' }],
      resolution: 'STATIC',
      workloadSelector: { labels: { app: s.name } },
    },
  };
}

function workloadEntry(s: BenchService, e: number, address: string, weight?: number): Doc {
  return {
    apiVersion: 'networking.mesh.io/v1',
    kind: 'WorkloadEntry',
    metadata: meta(`${s.name}-${e}`, s.namespace),
    spec: {
      address,
      labels: { app: s.name, version: e % 2 === 0 ? 'v1' : 'v2' },
      serviceAccount: `${s.name}-sa`,
      ...(weight !== undefined ? { weight } : {}),
    },
  };
}

function virtualService(s: BenchService, edits: ServiceEdits): Doc {
  const dest = (subset: string): Doc => ({ destination: { host: s.host, subset } });
  const http: Doc[] = [];
  for (const m of [...edits.vsMarkers].reverse()) {
    http.push({ name: `edit-${m}`, match: [{ headers: { [MARKER_HEADER]: { exact: m } } }], route: [dest('v1')] });
  }
  for (const sub of edits.plannedSubsets) {
    http.push({ name: `subset-${sub}`, match: [{ headers: { [SUBSET_HEADER]: { exact: sub } } }], route: [dest(sub)] });
  }
  http.push({ name: 'canary', match: [{ headers: { 'x-canary': { exact: 'true' } } }], route: [dest('v2')], retries: { attempts: 2, retryOn: 'unavailable' } });
  http.push({ name: 'default', route: [{ ...dest('v1'), weight: 90 }, { ...dest('v2'), weight: 10 }], timeout: '5s' });
  return { apiVersion: 'networking.mesh.io/v1', kind: 'VirtualService', metadata: meta(s.name, s.namespace), spec: { hosts: [s.host], http } };
}

function destinationRule(s: BenchService, edits: ServiceEdits): Doc {
  const subsets: Doc[] = [
    { name: 'v1', labels: { version: 'v1' } },
    { name: 'v2', labels: { version: 'v2' } },
    ...edits.addedSubsets.map((name) => ({ name, labels: { version: 'v1' } })),
  ];
  return {
    apiVersion: 'networking.mesh.io/v1',
    kind: 'DestinationRule',
    metadata: meta(s.name, s.namespace),
    spec: {
      host: s.host,
      trafficPolicy: { loadBalancer: { simple: 'ROUND_ROBIN' }, connectionPool: { http: { http2MaxRequests: 1000 } } },
      subsets,
    },
  };
}

/** Every document of one service, in file order. */
export function serviceDocuments(s: BenchService, size: MeshSize, edits: ServiceEdits = NO_EDITS): Doc[] {
  const docs: Doc[] = [serviceEntry(s)];
  for (let e = 0; e < size.endpointsPerService; e++) {
    const replaced = e === 0 ? edits.endpoint : undefined;
    docs.push(workloadEntry(s, e, replaced?.address ?? endpointAddress(s.index, e, size.endpointsPerService), replaced?.weight));
  }
  docs.push(virtualService(s, edits), destinationRule(s, edits));
  return docs;
}

/** Documents as one multi-document YAML text. */
export function toYaml(docs: readonly Doc[]): string {
  return docs.map((d) => stringify(d)).join('---\n');
}

/** The file (relative to the config dir) that holds a service's documents. */
export function serviceFile(s: BenchService): string {
  return `${s.namespace}/${s.name}.yaml`;
}

/** Every file of the initial mesh: relative path -> its documents. */
export function generateMeshDocuments(size: MeshSize, editsOf: (s: BenchService) => ServiceEdits = () => NO_EDITS): Map<string, Doc[]> {
  if (!Number.isInteger(size.services) || size.services < 1) throw new RangeError(`services: expected a positive integer, got ${size.services}`);
  if (!Number.isInteger(size.namespaces) || size.namespaces < 1) throw new RangeError(`namespaces: expected a positive integer, got ${size.namespaces}`);
  if (!Number.isInteger(size.endpointsPerService) || size.endpointsPerService < 1) {
    throw new RangeError(`endpointsPerService: expected a positive integer, got ${size.endpointsPerService}`);
  }
  const files = new Map<string, Doc[]>();
  for (let i = 0; i < size.services; i++) {
    const s = benchService(i, size.namespaces);
    files.set(serviceFile(s), serviceDocuments(s, size, editsOf(s)));
  }
  return files;
}

/** Every file of the initial mesh: relative path -> YAML text. */
export function generateMesh(size: MeshSize, editsOf: (s: BenchService) => ServiceEdits = () => NO_EDITS): Map<string, string> {
  return new Map([...generateMeshDocuments(size, editsOf)].map(([rel, docs]) => [rel, toYaml(docs)]));
}

/** The documents of a "new ServiceEntry" edit: the ServiceEntry and one WorkloadEntry. */
export function newServiceDocuments(s: BenchService, address: string): Doc[] {
  return [serviceEntry(s), workloadEntry(s, 0, address)];
}

/** The file of a "new ServiceEntry" edit: the ServiceEntry and one WorkloadEntry. */
export function newServiceFile(s: BenchService, address: string): { path: string; text: string } {
  return { path: serviceFile(s), text: toYaml(newServiceDocuments(s, address)) };
}
