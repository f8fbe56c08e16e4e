/**
 * What `meshctl x describe` reads from the API server, and the view meshd would build of it: the pods and
 * Services, the mesh.io objects, and a MeshModel snapshot whose PushContext answers which DestinationRule,
 * VirtualService, PeerAuthentication and AuthorizationPolicies apply (the same lookups meshd's generators make).
 */
import { MeshModel, proxyRequestPush, type Config, type MeshConfig, type PushSnapshot } from '../../core/index.js';

/** The part of an orchestrator client describe uses (`OrchClient` satisfies it). */
export interface ApiReader {
  request<T>(method: string, path: string, options?: { readonly query?: Readonly<Record<string, string | number | boolean | undefined>> }): Promise<T>;
}

/** The metadata describe reads. */
export interface OrchMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly creationTimestamp?: string;
}

/** A Pod, as far as describe reads it. */
export interface DescribedPod {
  readonly metadata: OrchMeta;
  readonly spec?: {
    readonly containers?: readonly { readonly name: string; readonly ports?: readonly { readonly name?: string; readonly containerPort: number; readonly protocol?: string }[] }[];
    readonly serviceAccountName?: string;
  };
  readonly status?: {
    readonly phase?: string;
    readonly podIP?: string;
    readonly hostIP?: string;
    readonly containerStatuses?: readonly { readonly name: string; readonly ready?: boolean }[];
    readonly initContainerStatuses?: readonly { readonly name: string; readonly ready?: boolean }[];
  };
}

/** A Service port. */
export interface ServicePortObject {
  readonly name?: string;
  readonly port: number;
  readonly protocol?: string;
  readonly appProtocol?: string;
  readonly targetPort?: number | string;
}

/** A Service, as far as describe reads it. */
export interface ServiceObject {
  readonly metadata: OrchMeta;
  readonly spec?: { readonly selector?: Readonly<Record<string, string>>; readonly ports?: readonly ServicePortObject[]; readonly clusterIP?: string; readonly type?: string };
  readonly status?: { readonly loadBalancer?: { readonly ingress?: readonly { readonly ip?: string; readonly hostname?: string }[] } };
}

/** The mesh.io kinds describe reads, with their API paths. */
export const DESCRIBE_KINDS = [
  { kind: 'VirtualService', path: '/apis/networking.mesh.io/v1/virtualservices' },
  { kind: 'DestinationRule', path: '/apis/networking.mesh.io/v1/destinationrules' },
  { kind: 'Gateway', path: '/apis/networking.mesh.io/v1/gateways' },
  { kind: 'ServiceEntry', path: '/apis/networking.mesh.io/v1/serviceentries' },
  { kind: 'Sidecar', path: '/apis/networking.mesh.io/v1/sidecars' },
  { kind: 'PeerAuthentication', path: '/apis/security.mesh.io/v1/peerauthentications' },
  { kind: 'AuthorizationPolicy', path: '/apis/security.mesh.io/v1/authorizationpolicies' },
] as const;

/** The label of ingress gateway pods (Istio's `istio=ingressgateway`). */
export const INGRESS_GATEWAY_LABEL = { key: 'mesh', value: 'ingressgateway' } as const;

/**
 * Turns the orchestrator's Services (with their EndpointSlices and pods) into the ServiceEntry configs meshd's
 * orchestrator registry makes of them. Injected by the command, which owns the registry's translation.
 */
export type ServiceTranslator = (services: readonly ServiceObject[], slices: readonly Record<string, unknown>[], pods: readonly DescribedPod[]) => Config[];

/** Options of {@link readDescribeCluster}. */
export interface DescribeClusterOptions {
  /** The namespace names are shown relative to (Istio's `kname`). */
  readonly namespace: string;
  readonly meshConfig: MeshConfig;
  /** DNS domain of the mesh, default `cluster.local`. */
  readonly domain?: string;
  readonly translate: ServiceTranslator;
}

/** The cluster state describe explains, with meshd's view of it. */
export interface DescribeCluster {
  readonly namespace: string;
  readonly domain: string;
  readonly meshConfig: MeshConfig;
  readonly pods: readonly DescribedPod[];
  readonly services: readonly ServiceObject[];
  /** Every mesh.io object, plus the ServiceEntries made of Services. */
  readonly configs: readonly Config[];
  readonly snapshot: PushSnapshot;
}

interface List<T> {
  readonly items?: readonly T[];
}

function isNotFound(e: unknown): boolean {
  return (e as { status?: number }).status === 404;
}

/** Lists a kind cluster-wide; a kind the API server does not serve (its CRD is absent) lists empty. */
async function listAll<T>(reader: ApiReader, path: string): Promise<T[]> {
  try {
    return [...((await reader.request<List<T>>('GET', path)).items ?? [])];
  } catch (e) {
    if (isNotFound(e)) return [];
    throw e;
  }
}

/** Builds meshd's model of `configs` and returns its snapshot. */
export function snapshotOf(configs: readonly Config[], meshConfig: MeshConfig, domain: string): PushSnapshot {
  const model = new MeshModel({ domain, drainingLabel: 'mesh.io/draining', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true, meshConfig });
  model.apply(
    configs.map((c) => ({
      kind: 'config' as const,
      event: { type: 'added' as const, key: { kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name }, object: c, resourceVersion: c.metadata.resourceVersion ?? '1' },
    })),
  );
  model.rebuild();
  const snap = proxyRequestPush(model.snapshot).snapshot;
  if (!snap) throw new Error('the model published no snapshot');
  return snap;
}

/** Reads pods, Services, EndpointSlices and the mesh.io objects cluster-wide, and builds meshd's view of them. */
export async function readDescribeCluster(reader: ApiReader, opts: DescribeClusterOptions): Promise<DescribeCluster> {
  const domain = opts.domain ?? 'cluster.local';
  const [pods, services, slices, ...meshLists] = await Promise.all([
    listAll<DescribedPod>(reader, '/api/v1/pods'),
    listAll<ServiceObject>(reader, '/api/v1/services'),
    listAll<Record<string, unknown>>(reader, '/apis/discovery.k8s.io/v1/endpointslices'),
    ...DESCRIBE_KINDS.map((k) => listAll<Record<string, unknown>>(reader, k.path)),
  ]);
  const meshConfigs: Config[] = [];
  DESCRIBE_KINDS.forEach((k, i) => {
    for (const o of meshLists[i] ?? []) meshConfigs.push({ ...(o as unknown as Config), kind: k.kind });
  });
  const configs = [...meshConfigs, ...opts.translate(services, slices, pods)];
  return { namespace: opts.namespace, domain, meshConfig: opts.meshConfig, pods, services, configs, snapshot: snapshotOf(configs, opts.meshConfig, domain) };
}
