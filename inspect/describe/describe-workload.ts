/**
 * `meshctl x describe pod|service`: istioctl's explanation of the configuration that applies to a pod or a
 * Service, computed from the API server's objects with meshd's own lookups (the PushContext of a model built
 * from them) instead of a proxy's config dump, plus the request simulator's traffic split.
 */
import { labelsMatch, type Config } from '../../core/index.js';
import type { DescribeCluster, DescribedPod, ServiceObject, ServicePortObject } from './describe-cluster.js';
import { INGRESS_GATEWAY_LABEL } from './describe-cluster.js';
import {
  destinationRuleLines,
  isHttpProtocol,
  kname,
  LEVEL,
  portProtocolName,
  routesTo,
  SEPARATOR,
  serviceHost,
  simulationLines,
  subsetsOf,
  virtualServiceLines,
  type RouteSimulator,
} from './describe-render.js';

/** The sidecar container of an injected pod. */
export const PROXY_CONTAINER_NAME = 'mesh-proxy';
const SIDECAR_STATUS = 'sidecar.mesh.io/status';
const REVISION_LABEL = 'mesh.io/rev';

/** A name the API server does not have: the message names kind, name and namespace as kubectl does. */
export class DescribeNotFoundError extends Error {
  constructor(kind: 'pods' | 'services', name: string, namespace: string) {
    super(`${kind} "${name}" not found in namespace ${namespace}`);
    this.name = 'DescribeNotFoundError';
  }
}

/** Options of both commands. */
export interface DescribeOptions {
  /** `--ignoreUnmeshed`: no warnings about pods without a sidecar. */
  readonly ignoreUnmeshed: boolean;
  /** Shows where requests to HTTP ports go; unset: no simulation lines. */
  readonly simulate?: RouteSimulator;
}

/** The revision of an injected pod: its `mesh.io/rev` annotation, else its sidecar status annotation's. */
export function podRevision(pod: DescribedPod): string {
  const a = pod.metadata.annotations ?? {};
  if (a[REVISION_LABEL] !== undefined) return a[REVISION_LABEL];
  try {
    const status = JSON.parse(a[SIDECAR_STATUS] ?? '') as { revision?: string };
    return typeof status.revision === 'string' ? status.revision : '';
  } catch {
    return '';
  }
}

const isMeshed = (pod: DescribedPod): boolean => (pod.spec?.containers ?? []).some((c) => c.name === PROXY_CONTAINER_NAME);

function podLines(pod: DescribedPod, ns: string, opts: DescribeOptions): string[] {
  const name = kname(pod.metadata, ns);
  const ports = (pod.spec?.containers ?? []).flatMap((c) => (c.ports ?? []).map((p) => `${p.containerPort}${p.protocol && p.protocol !== 'TCP' ? `/${p.protocol}` : ''} (${c.name})`));
  const out = [`Pod: ${name}`, `   Pod Revision: ${podRevision(pod)}`, ports.length > 0 ? `   Pod Ports: ${ports.join(', ')}` : '   Pod does not expose ports'];
  const phase = pod.status?.phase ?? 'Unknown';
  if (phase !== 'Running') return [...out, `   Pod is not Running (${phase})`];
  for (const s of pod.status?.containerStatuses ?? []) if (!s.ready) out.push(`WARNING: Pod ${name} Container ${s.name} NOT READY`);
  for (const s of pod.status?.initContainerStatuses ?? []) if (!s.ready) out.push(`WARNING: Pod ${name} Init Container ${s.name} NOT READY`);
  if (opts.ignoreUnmeshed) return out;
  if (!isMeshed(pod)) return [...out, `WARNING: ${name} is not part of mesh; no Mesh sidecar`];
  const l = pod.metadata.labels ?? {};
  if (!(l['service.mesh.io/canonical-name'] ?? l['app.kubernetes.io/name'] ?? l['app'])) out.push('Suggestion: add required service name label (app) for Mesh telemetry.');
  if (!(l['service.mesh.io/canonical-revision'] ?? l['app.kubernetes.io/version'] ?? l['version'])) out.push('Suggestion: add required service revision label (version) for Mesh telemetry.');
  return out;
}

function targetPort(pod: DescribedPod, port: ServicePortObject): number | string {
  const t = port.targetPort ?? port.port;
  if (typeof t === 'number') return t;
  if (/^\d+$/.test(t)) return Number(t);
  for (const c of pod.spec?.containers ?? []) for (const p of c.ports ?? []) if (p.name === t) return p.containerPort;
  return `no container port named ${t}`;
}

function serviceLines(svc: ServiceObject, pod: DescribedPod, ns: string): string[] {
  const out = [`Service: ${kname(svc.metadata, ns)}`];
  for (const p of svc.spec?.ports ?? []) {
    if (p.protocol && p.protocol !== 'TCP') continue;
    const t = targetPort(pod, p);
    out.push(typeof t === 'number' ? `   Port: ${p.name ?? ''} ${p.port}/${portProtocolName(p)} targets pod port ${t}` : `   ${t}`);
  }
  return out;
}

/** The Service blocks: per port, the DestinationRule and VirtualService meshd picks for the host, and the simulated split. */
function podServicesLines(cluster: DescribeCluster, pod: DescribedPod, services: readonly ServiceObject[], podsLabels: readonly Readonly<Record<string, string>>[], opts: DescribeOptions, podView: boolean): string[] {
  const pc = cluster.snapshot.pushContext;
  const from = pod.metadata.namespace ?? cluster.namespace;
  const out: string[] = [];
  services.forEach((svc, row) => {
    if (row !== 0) out.push(SEPARATOR);
    out.push(...serviceLines(svc, pod, cluster.namespace));
    const ports = svc.spec?.ports ?? [];
    const indent = ports.length > 1 ? LEVEL[1] : LEVEL[0];
    const host = serviceHost(svc, cluster.domain);
    for (const p of ports) {
      if (ports.length > 1) out.push(`${p.port}:`);
      const dr = pc.destinationRule(host, { namespace: from, labels: pod.metadata.labels ?? {} });
      const sub = subsetsOf(dr, podsLabels);
      if (dr) out.push(...destinationRuleLines(indent, dr, podsLabels, cluster.namespace));
      const vs = pc.virtualService(host, from);
      if (vs) out.push(...virtualServiceLines(indent, vs, svc, cluster.domain, sub, dr, cluster.namespace));
      if (opts.simulate && isHttpProtocol(portProtocolName(p))) {
        const r = opts.simulate(from, svc, p.port);
        out.push(...simulationLines(indent, r, svc, p.port, from, cluster.domain, podView ? (dr ? sub.matching : []) : undefined));
      }
    }
  });
  return out;
}

interface Selected {
  readonly selector?: { readonly matchLabels?: Readonly<Record<string, string>> };
}

/** `Applied <Kind>:` and the names (`name.namespace`), as istioctl prints them. */
function appliedLines(kind: string, configs: readonly Config[]): string[] {
  return configs.length === 0 ? [] : [`Applied ${kind}:`, `   ${configs.map((c) => `${c.metadata.name}.${c.metadata.namespace}`).join(', ')}`];
}

/** The PeerAuthentication and AuthorizationPolicy block: the effective mTLS mode (meshd's composition) and the objects that select the pod. */
function securityLines(cluster: DescribeCluster, pod: DescribedPod): string[] {
  const pc = cluster.snapshot.pushContext;
  const ns = pod.metadata.namespace ?? cluster.namespace;
  const labels = pod.metadata.labels ?? {};
  const root = cluster.meshConfig.rootNamespace;
  const selects = (c: Config): boolean => labelsMatch((c.spec as Selected).selector?.matchLabels, labels);
  const of = (kind: string): Config[] =>
    [root, ...(ns === root ? [] : [ns])].flatMap((n) => cluster.configs.filter((c) => c.kind === kind && c.metadata.namespace === n && selects(c)).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)));
  const pas = of('PeerAuthentication');
  const out = ['Effective PeerAuthentication:', `   Workload mTLS mode: ${pc.mtlsMode(ns, labels)}`];
  const ports = new Set<number>();
  for (const pa of pas) if ((pa.spec as Selected).selector?.matchLabels) for (const k of Object.keys((pa.spec as { portLevelMtls?: object }).portLevelMtls ?? {})) ports.add(Number(k));
  if (ports.size > 0) {
    out.push('   Port Level mTLS mode:');
    for (const port of [...ports].sort((a, b) => a - b)) out.push(`      ${port}: ${pc.mtlsMode(ns, labels, port)}`);
  }
  out.push(...appliedLines('PeerAuthentication', pas));
  const authz = pc.authorizationPolicies(ns, labels);
  const policies = [...authz.deny, ...authz.allow, ...authz.custom, ...authz.audit];
  if (policies.length > 0) {
    out.push('Applied AuthorizationPolicy:');
    out.push(`   ${policies.map((c) => `${c.metadata.name}.${c.metadata.namespace} (${(c.spec as { action?: string }).action ?? 'ALLOW'})`).join(', ')}`);
  }
  return out;
}

/** The ingress gateways (pods labelled `mesh=ingressgateway`, their Services) exposing the Services through a gateway-bound VirtualService. */
function ingressLines(cluster: DescribeCluster, services: readonly ServiceObject[], podsLabels: readonly Readonly<Record<string, string>>[]): string[] {
  const gwPods = cluster.pods.filter((p) => p.metadata.labels?.[INGRESS_GATEWAY_LABEL.key] === INGRESS_GATEWAY_LABEL.value && p.status?.phase === 'Running');
  if (gwPods.length === 0) return ['Skipping Gateway information (no ingress gateway pods)'];
  const ingresses = cluster.services
    .map((s) => ({ service: s, pods: gwPods.filter((p) => p.metadata.namespace === s.metadata.namespace && Object.keys(s.spec?.selector ?? {}).length > 0 && labelsMatch(s.spec?.selector, p.metadata.labels ?? {})) }))
    .filter((i) => i.pods.length > 0);
  if (ingresses.length === 0) return ['Skipping Gateway information (no ingress gateway service)'];
  const ipOf = (i: (typeof ingresses)[number]): string => i.service.status?.loadBalancer?.ingress?.[0]?.ip ?? i.pods[0]?.status?.hostIP ?? 'unknown';
  const out: string[] = [];
  const pc = cluster.snapshot.pushContext;
  const gateways = cluster.configs.filter((c) => c.kind === 'Gateway');
  const seen = new Set<string>();
  for (const svc of services) {
    const host = serviceHost(svc, cluster.domain);
    const from = svc.metadata.namespace ?? cluster.namespace;
    const dr = pc.destinationRule(host, { namespace: from, labels: {} });
    const sub = subsetsOf(dr, podsLabels);
    const bound = cluster.configs.filter((c) => c.kind === 'VirtualService' && ((c.spec as { gateways?: string[] }).gateways ?? []).some((g) => g !== 'mesh') && routesTo(c, host, cluster.domain));
    for (const vs of bound.sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`))) {
      for (const ref of (vs.spec as { gateways?: string[] }).gateways ?? []) {
        if (ref === 'mesh') continue;
        const [gns, gname] = ref.includes('/') ? [ref.slice(0, ref.indexOf('/')), ref.slice(ref.indexOf('/') + 1)] : [vs.metadata.namespace, ref];
        const key = `${gns}/${gname}|${vs.metadata.namespace}/${vs.metadata.name}|${host}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const gw = gateways.find((g) => g.metadata.namespace === gns && g.metadata.name === gname);
        if (!gw) {
          out.push(`WARNING: VirtualService ${kname(vs.metadata, cluster.namespace)} references non-existent gateway ${gns}/${gname}`);
          continue;
        }
        const selector = (gw.spec as { selector?: Record<string, string> }).selector;
        const matched = ingresses.filter((i) => i.pods.some((p) => labelsMatch(selector, p.metadata.labels ?? {}))).sort((a, b) => ipOf(a).localeCompare(ipOf(b)));
        if (matched.length === 0) continue;
        out.push(SEPARATOR);
        for (const i of matched) {
          for (const p of i.service.spec?.ports ?? []) {
            if ((p.protocol && p.protocol !== 'TCP') || !['http', 'http2'].includes(p.name ?? '')) continue;
            out.push(`Exposed on Ingress Gateway http://${ipOf(i)}${p.port === 80 ? '' : `:${p.port}`}`);
          }
        }
        out.push(...virtualServiceLines(LEVEL[0], vs, svc, cluster.domain, sub, dr, cluster.namespace));
      }
    }
  }
  return out;
}

/** `x describe pod <name>` in the namespace of `cluster` (or `ns`): the lines istioctl prints. @throws DescribeNotFoundError */
export function describePod(cluster: DescribeCluster, name: string, ns: string, opts: DescribeOptions): string[] {
  const pod = cluster.pods.find((p) => p.metadata.name === name && p.metadata.namespace === ns);
  if (!pod) throw new DescribeNotFoundError('pods', name, ns);
  const labels = pod.metadata.labels ?? {};
  const out = podLines(pod, cluster.namespace, opts);
  const services = cluster.services.filter((s) => s.metadata.namespace === ns && Object.keys(s.spec?.selector ?? {}).length > 0 && labelsMatch(s.spec?.selector, labels));
  if (services.length === 0 && !opts.ignoreUnmeshed) {
    out.push(`Warning: No orchestrator Services select pod ${kname(pod.metadata, cluster.namespace)} (a mesh workload needs a Service)`);
  }
  out.push(SEPARATOR, ...podServicesLines(cluster, pod, services, [labels], opts, true));
  out.push(SEPARATOR, ...securityLines(cluster, pod));
  out.push(...ingressLines(cluster, services, [labels]));
  return out;
}

/** `x describe service <name>`: the lines istioctl prints. @throws DescribeNotFoundError */
export function describeService(cluster: DescribeCluster, name: string, ns: string, opts: DescribeOptions): string[] {
  const svc = cluster.services.find((s) => s.metadata.name === name && s.metadata.namespace === ns);
  if (!svc) throw new DescribeNotFoundError('services', name, ns);
  const selector = svc.spec?.selector ?? {};
  const selected = Object.keys(selector).length === 0 ? [] : cluster.pods.filter((p) => p.metadata.namespace === ns && labelsMatch(selector, p.metadata.labels ?? {}));
  const out: string[] = [];
  const meshed: DescribedPod[] = [];
  for (const pod of selected) {
    const pname = kname(pod.metadata, cluster.namespace);
    if (pod.status?.phase !== 'Running') {
      out.push(`   Pod ${pname} is not Running (${pod.status?.phase ?? 'Unknown'})`);
      continue;
    }
    const status = [...(pod.status.containerStatuses ?? []), ...(pod.status.initContainerStatuses ?? [])].find((s) => s.name === PROXY_CONTAINER_NAME);
    if (!status) {
      if (!opts.ignoreUnmeshed) out.push(`Pod ${pname}: no container "${PROXY_CONTAINER_NAME}" in pod`);
      continue;
    }
    if (!status.ready) {
      out.push(`WARNING: Pod ${pname} Container ${PROXY_CONTAINER_NAME} NOT READY`);
      continue;
    }
    meshed.push(pod);
  }
  const sname = kname(svc.metadata, cluster.namespace);
  if (meshed.length === 0) {
    if (selected.length === 0) return [...out, `Service "${sname}" has no pods.`];
    return [...out, `Service "${sname}" has no Mesh pods.  (${selected.length} pods in service).`, 'Use `meshctl orch-inject` or redeploy with Mesh automatic sidecar injection.'];
  }
  const podsLabels = meshed.map((p) => p.metadata.labels ?? {});
  out.push(...podServicesLines(cluster, meshed[0]!, [svc], podsLabels, opts, false));
  out.push(...ingressLines(cluster, [svc], podsLabels));
  return out;
}

/** Splits `<name>[.<namespace>]` (Istio's InferPodInfo). */
export function splitTarget(target: string, defaultNamespace: string): { name: string; namespace: string } {
  const dot = target.lastIndexOf('.');
  return dot > 0 ? { name: target.slice(0, dot), namespace: target.slice(dot + 1) } : { name: target, namespace: defaultNamespace };
}
