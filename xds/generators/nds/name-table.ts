/**
 * The name table a sidecar's agent answers DNS from (NDS; Istio's BuildNameTable): every service in the
 * proxy's Sidecar scope with its virtual IPs, or, for a headless orchestrator service, its endpoints' IPs.
 * Orchestrator services carry their short name and namespace, so the agent also answers `a`, `a.ns` and
 * `a.ns.svc`. A host has one service in the model (the oldest declaration wins, as for clusters), so one
 * entry. Wildcard hosts, CIDR addresses, and DNS or NONE ServiceEntries without addresses are left out:
 * there is nothing to answer them with.
 */
import { isIP } from 'node:net';
import { orchServiceOf, type Proxy, type PushSnapshot, type Service } from '../../../core/index.js';
import { sidecarScope } from '../sidecar/sidecar-scope.js';

/** One entry of the table (the proto's `NameInfo`, camelCase as protobufjs encodes it). */
export interface NameInfo {
  ips: string[];
  registry: 'Kubernetes' | 'External';
  shortname?: string;
  namespace?: string;
}

/** The addresses of one service, or none when it cannot be answered. */
function addressesOf(svc: Service, snap: PushSnapshot, orch: boolean): string[] {
  const vips = svc.addresses.filter((a) => isIP(a) !== 0);
  if (vips.length > 0) return vips;
  // NOTE: no VIP: a headless orchestrator service answers with its endpoints' addresses (first port's).
  if (!orch || svc.resolution !== 'NONE' || svc.ports.length === 0) return [];
  const first = svc.ports[0]!.port;
  return [...new Set(snap.endpoints.instancesOf(svc).filter((i) => i.servicePort === first && isIP(i.address) !== 0).map((i) => i.address))];
}

/** The name table of `proxy` from the snapshot, keyed by host in host order (the scope's order). */
export function buildNameTable(proxy: Proxy, snap: PushSnapshot): Map<string, NameInfo> {
  const table = new Map<string, NameInfo>();
  for (const svc of sidecarScope(snap.pushContext, proxy).services) {
    if (svc.hostname.includes('*')) continue;
    const orch = orchServiceOf(svc);
    const ips = addressesOf(svc, snap, orch !== undefined);
    if (ips.length === 0) continue;
    table.set(svc.hostname, orch ? { ips, registry: 'Kubernetes', shortname: orch.name, namespace: orch.namespace } : { ips, registry: 'External' });
  }
  return table;
}
