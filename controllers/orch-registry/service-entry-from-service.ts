/**
 * One orchestrator Service (with its EndpointSlices, Pods, Nodes and, optionally, the WorkloadEntries its
 * selector selects) as a mesh ServiceEntry config. The model folds ServiceEntries into services and
 * endpoints (core's ServiceEntryView), so the orchestrator registry feeds the same pipeline as
 * `--configDir` and mesh.io ServiceEntries: this function is the whole translation, pure and table-tested.
 *
 * NOTE: the generated config is named `orch:<service>`; `:` is not allowed in object names, so it never
 * collides with a user's ServiceEntry. It carries the {@link ORCH_SOURCE_ANNOTATION} annotation.
 */
import type { V1EndpointSlice, V1Namespace, V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import type { Config } from '../../core/index.js';
import { labelsMatch, ORCH_NAME_PREFIX } from '../../core/index.js';
import { portProtocol } from './port-protocol.js';
import type { SpecOf } from '../../crds/index.js';

/** Annotation on every config the orchestrator registry generates; its value is the source kind. */
export const ORCH_SOURCE_ANNOTATION = 'mesh.io/orch-source';
/** Prefix of the names of generated configs (core's, where services are told apart by it). */
export { ORCH_NAME_PREFIX };
/** Service annotation that restricts where the service is visible (comma-separated namespaces, `*`, `.`). */
export const EXPORT_TO_ANNOTATION = 'networking.mesh.io/exportTo';
/** Node and endpoint labels of the locality. */
export const LOCALITY_LABELS = {
  region: 'topology.kubernetes.io/region',
  zone: 'topology.kubernetes.io/zone',
  subZone: 'topology.mesh.io/subzone',
} as const;
/** Endpoint labels meshd adds: the cluster and the network of the workload. */
export const CLUSTER_LABEL = 'topology.mesh.io/cluster';
export const NETWORK_LABEL = 'topology.mesh.io/network';
/** EndpointSlice label naming the Service it belongs to. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** Options of the translation, from flags, env and mesh config. */
export interface OrchTranslationOptions {
  /** `--domain` */
  readonly domain: string;
  /** `--clusterID` */
  readonly clusterId: string;
  /** Mesh config `trustDomain`, for SPIFFE service-account names. */
  readonly trustDomain: string;
  /** ENABLE_EXTERNAL_NAME_ALIAS */
  readonly externalNameAlias: boolean;
  /** PILOT_ENABLE_ORCH_SELECT_WORKLOAD_ENTRIES */
  readonly selectWorkloadEntries: boolean;
  /**
   * MESH_ENABLE_OPTIMIZED_SERVICE_PUSH (default true): the Service's own annotations stay out of the generated
   * ServiceEntry, so changing them pushes nothing. False: they are copied, so any annotation change pushes.
   */
  readonly optimizedServicePush?: boolean;
}

/** What the translation looks up. */
export interface OrchLookup {
  pod(namespace: string, name: string): V1Pod | undefined;
  podByIp(ip: string): V1Pod | undefined;
  node(name: string): V1Node | undefined;
  namespace(name: string): V1Namespace | undefined;
  /** WorkloadEntry configs of a namespace. */
  workloadEntries(namespace: string): readonly Config[];
  /**
   * The endpoints of the orchestrator Service with this host name, when there is one (for ExternalName
   * aliases of mesh services); undefined otherwise.
   */
  serviceEndpoints?(hostname: string): readonly Readonly<Record<string, unknown>>[] | undefined;
}

/** Counts for the registry's metrics. */
export interface TranslationStats {
  /** Endpoints naming a pod that is not known yet (held back until it is). */
  readonly pendingPod: number;
  /** Endpoints with no pod at all (served without pod labels). */
  readonly noPod: number;
}

/** The outcome for one Service. */
export interface ServiceTranslation {
  readonly config: Config;
  readonly stats: TranslationStats;
}

/** A ServiceEntry endpoint: a WorkloadEntry spec, as in Istio. */
type EndpointSpec = SpecOf<'WorkloadEntry'>;

/** The host name of a Service: `<name>.<namespace>.svc.<domain>`. */
export function serviceHostname(name: string, namespace: string, domain: string): string {
  return `${name}.${namespace}.svc.${domain}`;
}

/** The SPIFFE identity of a service account. */
export function spiffeId(trustDomain: string, namespace: string, serviceAccount: string): string {
  return `spiffe://${trustDomain}/ns/${namespace}/sa/${serviceAccount}`;
}

/** The locality `region/zone/subzone` of a node (empty parts when unlabelled). */
export function nodeLocality(node: V1Node | undefined, zoneHint?: string): string {
  const l = node?.metadata?.labels ?? {};
  const parts = [l[LOCALITY_LABELS.region] ?? '', l[LOCALITY_LABELS.zone] ?? zoneHint ?? '', l[LOCALITY_LABELS.subZone] ?? ''];
  return parts.join('/').replace(/\/+$/, '');
}

function portName(p: { name?: string; port: number }): string {
  return p.name ? p.name : `port-${p.port}`;
}

function endpointLabels(podLabels: Readonly<Record<string, string>>, locality: string, clusterId: string, network: string): Record<string, string> {
  const [region = '', zone = '', subZone = ''] = locality.split('/');
  const labels: Record<string, string> = { ...podLabels, [CLUSTER_LABEL]: clusterId };
  if (region) labels[LOCALITY_LABELS.region] = region;
  if (zone) labels[LOCALITY_LABELS.zone] = zone;
  if (subZone) labels[LOCALITY_LABELS.subZone] = subZone;
  if (network) labels[NETWORK_LABEL] = network;
  return labels;
}

/**
 * Builds the ServiceEntry of `service`. Every ready endpoint address of its EndpointSlices becomes an
 * endpoint with the pod's labels, service account and the node's locality; endpoints whose pod is not
 * known yet are held back (counted as pending); ExternalName services resolve by DNS to the external name.
 */
export function serviceEntryFromService(
  service: V1Service,
  slices: readonly V1EndpointSlice[],
  lookup: OrchLookup,
  opts: OrchTranslationOptions,
): ServiceTranslation {
  const name = service.metadata?.name ?? '';
  const ns = service.metadata?.namespace ?? '';
  const spec = service.spec ?? {};
  const isExternalName = spec.type === 'ExternalName';
  const ports = (spec.ports ?? []).map((p) => ({
    number: p.port,
    name: portName(p),
    // NOTE: without aliasing, an ExternalName port is opaque TCP whatever its name says.
    protocol: isExternalName && !opts.externalNameAlias ? 'TCP' : portProtocol(p),
    ...(typeof p.targetPort === 'number' ? { targetPort: p.targetPort } : {}),
  }));
  const nsLabels = lookup.namespace(ns)?.metadata?.labels ?? {};
  const endpoints: EndpointSpec[] = [];
  const seen = new Set<string>();
  let pendingPod = 0;
  let noPod = 0;
  // NOTE: with ENABLE_EXTERNAL_NAME_ALIAS, an ExternalName naming a mesh service is an alias of it: the
  // same endpoints. Any other external name is resolved by DNS.
  const aliased = isExternalName && opts.externalNameAlias && spec.externalName ? lookup.serviceEndpoints?.(spec.externalName.replace(/\.$/, '')) : undefined;
  if (aliased) endpoints.push(...(aliased as unknown as EndpointSpec[]));
  else if (isExternalName && spec.externalName) {
    endpoints.push({ address: spec.externalName, labels: { [CLUSTER_LABEL]: opts.clusterId } });
  }
  for (const slice of isExternalName ? [] : slices) {
    const slicePorts = new Map((slice.ports ?? []).map((p) => [p.name ?? '', p.port]));
    for (const ep of slice.endpoints ?? []) {
      if (ep.conditions?.ready === false) continue;
      const ref = ep.targetRef?.kind === 'Pod' ? ep.targetRef : undefined;
      let pod: V1Pod | undefined;
      if (ref?.name) {
        pod = lookup.pod(ref.namespace ?? ns, ref.name);
        if (!pod) {
          pendingPod += ep.addresses.length;
          continue;
        }
      }
      const epPorts: Record<string, number> = {};
      for (const sp of spec.ports ?? []) {
        const port = slicePorts.get(sp.name ?? '');
        if (port !== undefined) epPorts[portName(sp)] = port;
      }
      for (const address of ep.addresses) {
        // NOTE: one address may serve on different ports in different slices (e.g. mid-rollout).
        const id = `${address}|${JSON.stringify(epPorts)}`;
        if (seen.has(id)) continue;
        seen.add(id);
        const p = pod ?? lookup.podByIp(address);
        if (!p) noPod += 1;
        const nodeName = ep.nodeName ?? p?.spec?.nodeName;
        const locality = nodeLocality(nodeName ? lookup.node(nodeName) : undefined, ep.zone);
        const podLabels = p?.metadata?.labels ?? {};
        const network = podLabels[NETWORK_LABEL] ?? nsLabels[NETWORK_LABEL] ?? '';
        const sa = p?.spec?.serviceAccountName;
        endpoints.push({
          address,
          ports: epPorts,
          labels: endpointLabels(podLabels, locality, opts.clusterId, network),
          ...(network ? { network } : {}),
          ...(locality ? { locality } : {}),
          ...(sa ? { serviceAccount: spiffeId(opts.trustDomain, p?.metadata?.namespace ?? ns, sa) } : {}),
        });
      }
    }
  }
  if (opts.selectWorkloadEntries && !isExternalName && spec.selector && Object.keys(spec.selector).length > 0) {
    for (const we of lookup.workloadEntries(ns)) {
      const w = we.spec as unknown as EndpointSpec;
      const id = `${w.address ?? ''}|${JSON.stringify(w.ports ?? {})}`;
      if (!w.address || seen.has(id) || !labelsMatch(spec.selector, w.labels ?? {})) continue;
      seen.add(id);
      const network = w.network ?? '';
      endpoints.push({
        ...w,
        labels: endpointLabels(w.labels ?? {}, w.locality ?? '', opts.clusterId, network),
        ...(w.serviceAccount ? { serviceAccount: spiffeId(opts.trustDomain, ns, w.serviceAccount) } : {}),
      });
    }
  }
  const headless = spec.clusterIP === 'None';
  const addresses = headless || isExternalName ? [] : (spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])).filter((a) => a !== 'None');
  const exportTo = service.metadata?.annotations?.[EXPORT_TO_ANNOTATION];
  const serviceAccounts = [...new Set(endpoints.map((e) => e.serviceAccount).filter((s): s is string => !!s))].sort();
  const config: Config = {
    apiVersion: 'networking.mesh.io/v1',
    kind: 'ServiceEntry',
    metadata: {
      name: `${ORCH_NAME_PREFIX}${name}`,
      namespace: ns,
      labels: { ...(service.metadata?.labels ?? {}) },
      annotations: {
        ...(opts.optimizedServicePush === false ? (service.metadata?.annotations ?? {}) : {}),
        [ORCH_SOURCE_ANNOTATION]: 'Service',
        ...(isExternalName && opts.externalNameAlias && spec.externalName ? { 'mesh.io/alias-of': spec.externalName } : {}),
      },
      ...(service.metadata?.creationTimestamp ? { creationTimestamp: new Date(service.metadata.creationTimestamp).toISOString() } : {}),
    },
    spec: {
      hosts: [serviceHostname(name, ns, opts.domain)],
      addresses,
      ports,
      location: 'MESH_INTERNAL',
      resolution: aliased ? 'STATIC' : isExternalName ? 'DNS' : headless ? 'NONE' : 'STATIC',
      endpoints,
      ...(exportTo ? { exportTo: exportTo.split(',').map((s) => s.trim()).filter((s) => s !== '') } : {}),
      ...(serviceAccounts.length > 0 ? { subjectAltNames: serviceAccounts } : {}),
    },
  };
  return { config, stats: { pendingPod, noPod } };
}
