/**
 * Orchestrator (Kubernetes) objects in `meshctl x simulate` / `x translate` inputs: Services,
 * EndpointSlices, Endpoints and Pods become what meshd's orchestrator registry makes of them (the same
 * translation, `serviceEntryFromService`): one ServiceEntry per Service with its cluster IPs, ports and
 * protocols, and an endpoint per ready address with the pod's labels and service account. A Service
 * without an EndpointSlice or Endpoints in the files gets the slice the endpoints controller would make
 * from the files' running Pods its selector matches (container ports resolve named target ports). Pods
 * also become proxies `--proxy <namespace>/<pod>` can name. Deployments are refused (give the Pods).
 */
import type { V1EndpointSlice, V1Endpoints, V1Pod, V1Service } from '@kubernetes/client-node';
import { labelsMatch, type Config } from '../../core/index.js';
import { serviceEntryFromService, SERVICE_NAME_LABEL, type OrchLookup } from '../../controllers/index.js';
import { CliError, NotImplementedError } from '../framework/index.js';

/** An orchestrator object read from a file, with where it came from. */
export interface OrchDocument {
  readonly file: string;
  /** 1-based document number in the file. */
  readonly document: number;
  readonly object: Readonly<Record<string, unknown>>;
}

/** Kinds read here (apiVersion `v1` or `discovery.k8s.io/v1`). */
export const ORCH_INPUT_KINDS: ReadonlySet<string> = new Set(['Service', 'Endpoints', 'EndpointSlice', 'Pod']);

type Meta = { name?: string; namespace?: string; labels?: Record<string, string> };
const meta = (o: { metadata?: unknown }): Meta => (o.metadata ?? {}) as Meta;

/** The Endpoints object of a Service as the EndpointSlice the registry reads (ready and not-ready addresses). */
export function sliceFromEndpoints(ep: V1Endpoints): V1EndpointSlice {
  const m = meta(ep);
  const endpoints: NonNullable<V1EndpointSlice['endpoints']> = [];
  const ports: NonNullable<V1EndpointSlice['ports']> = [];
  for (const s of ep.subsets ?? []) {
    for (const p of s.ports ?? []) if (!ports.some((x) => x.name === (p.name ?? '') && x.port === p.port)) ports.push({ name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP' });
    for (const [ready, list] of [[true, s.addresses ?? []], [false, s.notReadyAddresses ?? []]] as const) {
      for (const a of list) endpoints.push({ addresses: [a.ip], conditions: { ready }, ...(a.targetRef ? { targetRef: a.targetRef } : {}), ...(a.nodeName ? { nodeName: a.nodeName } : {}) });
    }
  }
  return { addressType: 'IPv4', metadata: { name: m.name ?? '', namespace: m.namespace ?? 'default', labels: { [SERVICE_NAME_LABEL]: m.name ?? '' } }, endpoints, ports };
}

/** The EndpointSlice the endpoints controller would make for `svc` from running `pods` (undefined without a selector). */
export function sliceFromPods(svc: V1Service, pods: readonly V1Pod[]): V1EndpointSlice | undefined {
  const sel = svc.spec?.selector;
  if (!sel || Object.keys(sel).length === 0) return undefined;
  const m = meta(svc);
  const ns = m.namespace ?? 'default';
  const picked = pods.filter((p) => (meta(p).namespace ?? 'default') === ns && labelsMatch(sel, meta(p).labels ?? {}) && p.status?.podIP && p.status.phase !== 'Succeeded' && p.status.phase !== 'Failed');
  const endpoints: NonNullable<V1EndpointSlice['endpoints']> = [];
  const ports: NonNullable<V1EndpointSlice['ports']> = [];
  for (const sp of svc.spec?.ports ?? []) {
    const tp = sp.targetPort ?? sp.port;
    // NOTE: a named target port resolves per pod; the slice takes the first pod's number (pods of one selector share it).
    const resolved = typeof tp === 'number' || /^\d+$/.test(String(tp)) ? Number(tp) : picked.flatMap((p) => p.spec?.containers ?? []).flatMap((c) => c.ports ?? []).find((cp) => cp.name === tp)?.containerPort;
    if (resolved !== undefined) ports.push({ name: sp.name ?? '', port: resolved, protocol: sp.protocol ?? 'TCP' });
  }
  for (const p of picked) {
    const ready = p.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'False';
    endpoints.push({ addresses: [p.status!.podIP!], conditions: { ready }, targetRef: { kind: 'Pod', name: meta(p).name ?? '', namespace: ns }, ...(p.spec?.nodeName ? { nodeName: p.spec.nodeName } : {}) });
  }
  return { addressType: 'IPv4', metadata: { name: `${m.name ?? ''}-files`, namespace: ns, labels: { [SERVICE_NAME_LABEL]: m.name ?? '' } }, endpoints, ports };
}

/** What the orchestrator objects add: ServiceEntries for the model, and WorkloadEntry-shaped proxies for `--proxy`. */
export interface OrchInputs {
  readonly configs: Config[];
  /** One per Pod with an IP: `--proxy <namespace>/<pod>` finds it (not served to the model). */
  readonly proxies: Config[];
}

/** Translates the orchestrator documents (see the file comment); refuses what it cannot read, naming file and document. */
export function orchInputs(docs: readonly OrchDocument[], opts: { domain: string; trustDomain: string }): OrchInputs {
  const where = (d: OrchDocument): string => `${d.file} document ${d.document} (${String(d.object['kind'])} ${meta(d.object).namespace ?? 'default'}/${meta(d.object).name ?? ''})`;
  const services: V1Service[] = [];
  const slices: V1EndpointSlice[] = [];
  const pods: V1Pod[] = [];
  for (const d of docs) {
    const kind = String(d.object['kind']);
    if (!ORCH_INPUT_KINDS.has(kind)) throw new NotImplementedError(`Kubernetes ${kind} inputs (${where(d)}); give its Pods, or describe workloads with WorkloadEntry`);
    if (!meta(d.object).name) throw new CliError(`${where(d)}: metadata.name is required`);
    const withNs = { ...d.object, metadata: { ...meta(d.object), namespace: meta(d.object).namespace ?? 'default' } };
    if (kind === 'Service') services.push(withNs as V1Service);
    else if (kind === 'EndpointSlice') slices.push(withNs as V1EndpointSlice);
    else if (kind === 'Endpoints') slices.push(sliceFromEndpoints(withNs as V1Endpoints));
    else pods.push(withNs as V1Pod);
  }
  const byKey = new Map(pods.map((p) => [`${meta(p).namespace}/${meta(p).name}`, p]));
  const byIp = new Map(pods.filter((p) => p.status?.podIP).map((p) => [p.status!.podIP!, p]));
  const lookup: OrchLookup = {
    pod: (ns, name) => byKey.get(`${ns}/${name}`),
    podByIp: (ip) => byIp.get(ip),
    node: () => undefined,
    namespace: () => undefined,
    workloadEntries: () => [],
  };
  const configs: Config[] = [];
  for (const svc of services) {
    const m = meta(svc);
    const own = slices.filter((s) => meta(s).namespace === m.namespace && meta(s).labels?.[SERVICE_NAME_LABEL] === m.name);
    const fromPods = own.length === 0 ? sliceFromPods(svc, pods) : undefined;
    const t = serviceEntryFromService(svc, fromPods ? [fromPods] : own, lookup, { clusterId: 'Kubernetes', domain: opts.domain, trustDomain: opts.trustDomain, externalNameAlias: false, selectWorkloadEntries: false });
    configs.push(t.config);
  }
  const proxies: Config[] = pods
    .filter((p) => p.status?.podIP)
    .map((p) => ({
      apiVersion: 'networking.mesh.io/v1',
      kind: 'WorkloadEntry',
      metadata: { name: meta(p).name!, namespace: meta(p).namespace! },
      spec: { address: p.status!.podIP!, labels: { ...(meta(p).labels ?? {}) }, ...(p.spec?.serviceAccountName ? { serviceAccount: p.spec.serviceAccountName } : {}) },
    }));
  return { configs, proxies };
}
