/**
 * A small mesh for sidecar generator tests: reviews (two versions, VirtualService with a header match
 * and an 80/20 split, DestinationRule with subsets and MESH_MUTUAL), productpage (the test proxy's own
 * service), a TCP database with a VIP, an external DNS host, and a STRICT PeerAuthentication in
 * `default`. Plus the sidecar node of productpage and helpers to build or fetch every resource.
 */
import { defaultMeshConfig, proxyFromNode, proxyRequestPush, type MeshConfig, type MeshModel, type Proxy, type ProxyNode, type PushSnapshot } from '../../../../core/index.js';
import { TYPE_URL } from '../../../server/contracts.js';
import { configEvent, configsFromYaml, testModel } from '../../testing/model-fixtures.js';
import type { ProxyConfig } from '../consistency-checker.js';
import { buildSidecarResources } from '../sidecar-generator.js';

/** The mesh (YAML). */
export const SIDECAR_MESH = `
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: reviews, namespace: default }
spec:
  hosts: [reviews.default.svc.cluster.local]
  addresses: [10.96.0.10]
  location: MESH_INTERNAL
  ports: [{ number: 9080, name: http, protocol: HTTP }]
  resolution: STATIC
  workloadSelector: { labels: { app: reviews } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: reviews-v1, namespace: default }
spec: { address: 127.0.0.21, labels: { app: reviews, version: v1, security.mesh.io/tlsMode: mesh }, locality: r1/z1, serviceAccount: reviews }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: reviews-v2, namespace: default }
spec: { address: 127.0.0.22, labels: { app: reviews, version: v2, security.mesh.io/tlsMode: mesh }, locality: r1/z2, serviceAccount: reviews, weight: 3 }
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: productpage, namespace: default }
spec:
  hosts: [productpage.default.svc.cluster.local]
  addresses: [10.96.0.20]
  location: MESH_INTERNAL
  ports: [{ number: 9080, name: http, protocol: HTTP }]
  resolution: STATIC
  workloadSelector: { labels: { app: productpage } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: productpage, namespace: default }
spec: { address: 10.0.0.1, labels: { app: productpage, security.mesh.io/tlsMode: mesh }, serviceAccount: productpage }
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: db, namespace: data }
spec:
  hosts: [db.data.svc.cluster.local]
  addresses: [10.96.0.30]
  location: MESH_INTERNAL
  ports: [{ number: 5432, name: tcp, protocol: TCP }]
  resolution: STATIC
  workloadSelector: { labels: { app: db } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: db, namespace: data }
spec: { address: 127.0.0.31, labels: { app: db } }
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: api, namespace: default }
spec:
  hosts: [api.example.com]
  location: MESH_EXTERNAL
  ports: [{ number: 443, name: tls, protocol: TLS }]
  resolution: DNS
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: reviews, namespace: default, generation: 4 }
spec:
  hosts: [reviews]
  http:
  - name: jason
    match: [{ headers: { end-user: { exact: jason } }, uri: { prefix: /reviews } }]
    route: [{ destination: { host: reviews, subset: v2 } }]
    fault: { abort: { httpStatus: 503, percentage: { value: 10 } } }
  - name: split
    timeout: 2s
    retries: { attempts: 3, perTryTimeout: 500ms, retryOn: "5xx,connect-failure,503" }
    headers: { request: { set: { x-split: "yes" } } }
    route:
    - { destination: { host: reviews, subset: v1 }, weight: 80 }
    - { destination: { host: reviews, subset: v2 }, weight: 20 }
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews, namespace: default, generation: 2 }
spec:
  host: reviews.default.svc.cluster.local
  trafficPolicy:
    connectionPool: { tcp: { maxConnections: 100, connectTimeout: 3s }, http: { http1MaxPendingRequests: 10, idleTimeout: 30s } }
    outlierDetection: { consecutive5xxErrors: 5, interval: 10s, baseEjectionTime: 30s, maxEjectionPercent: 50 }
    tls: { mode: MESH_MUTUAL }
  subsets:
  - { name: v1, labels: { version: v1 } }
  - name: v2
    labels: { version: v2 }
    trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: x-user } } }
---
apiVersion: security.mesh.io/v1
kind: PeerAuthentication
metadata: { name: default, namespace: default }
spec: { mtls: { mode: STRICT } }
`;

/** The sidecar node of productpage (10.0.0.1) in `default`. */
export function sidecarNode(over: Partial<ProxyNode> = {}): ProxyNode {
  return {
    id: 'sidecar~10.0.0.1~productpage-1.default~default.svc.cluster.local',
    type: 'sidecar',
    ipAddresses: ['10.0.0.1'],
    podName: 'productpage-1',
    namespace: 'default',
    dnsDomain: 'default.svc.cluster.local',
    metadata: { LABELS: { app: 'productpage' }, NAMESPACE: 'default' },
    proxyless: false,
    ...over,
  };
}

/** A model holding `yaml` (default SIDECAR_MESH), rebuilt; `mesh` overrides mesh config fields. */
export function sidecarModel(yaml = SIDECAR_MESH, mesh: Partial<MeshConfig> = {}): MeshModel {
  const model = testModel({ meshConfig: { ...defaultMeshConfig(), ...mesh } });
  model.apply(configsFromYaml(yaml).map((c) => configEvent(c)));
  model.rebuild();
  return model;
}

/**
 * Every resource a sidecar gets from a snapshot, following references as Envoy does (LDS/CDS wildcard,
 * then RDS and EDS names); `opts` adds generator options (e.g. ENABLE_TLS_ON_SIDECAR_INGRESS).
 */
export function allSidecarResources(p: Proxy, snap: PushSnapshot, more: Omit<Parameters<typeof buildSidecarResources>[4], 'sendUnhealthyEndpoints'> = {}): ProxyConfig {
  const opts = { sendUnhealthyEndpoints: false, ...more };
  const listeners = [...buildSidecarResources(p, TYPE_URL.listener, snap, undefined, opts).values()];
  const clusters = [...buildSidecarResources(p, TYPE_URL.cluster, snap, undefined, opts).values()];
  const rdsNames = rdsNamesOf(listeners);
  const edsNames = edsNamesOf(clusters);
  const routes = [...buildSidecarResources(p, TYPE_URL.route, snap, rdsNames, opts).values()];
  const endpoints = [...buildSidecarResources(p, TYPE_URL.endpoint, snap, edsNames, opts).values()];
  return { listeners, routes, clusters, endpoints };
}

/** The RDS names the listeners' HCMs ask for. */
export function rdsNamesOf(listeners: readonly Record<string, unknown>[]): string[] {
  const names = new Set<string>();
  for (const l of listeners) {
    for (const fc of (l['filterChains'] as Record<string, unknown>[] | undefined) ?? []) {
      for (const f of (fc['filters'] as Record<string, unknown>[] | undefined) ?? []) {
        const rds = (f['typedConfig'] as { rds?: { routeConfigName?: string } } | undefined)?.rds;
        if (rds?.routeConfigName) names.add(rds.routeConfigName);
      }
    }
  }
  return [...names].sort();
}

/** The EDS names the EDS clusters ask for. */
export function edsNamesOf(clusters: readonly Record<string, unknown>[]): string[] {
  return clusters
    .filter((c) => c['type'] === 'EDS')
    .map((c) => (c['edsClusterConfig'] as { serviceName?: string } | undefined)?.serviceName || (c['name'] as string))
    .sort();
}

/** The productpage sidecar and the push snapshot of a model. */
export function sidecarAt(model: MeshModel, node = sidecarNode()): { proxy: Proxy; snap: PushSnapshot } {
  const snap = proxyRequestPush(model.snapshot).snapshot;
  if (!snap) throw new Error('the model published no snapshot');
  return { proxy: proxyFromNode(node), snap };
}

/** A MESH_EXTERNAL ServiceEntry document (led by `---`) of `host` with static or DNS `addresses` as its endpoints. */
export function externalEntryYaml(o: { host: string; name: string; namespace: string; created: string; ports: string; resolution: string; addresses: readonly string[]; exportTo?: string }): string {
  return `
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: ${o.name}, namespace: ${o.namespace}, creationTimestamp: "${o.created}" }
spec:
  hosts: [${o.host}]${o.exportTo !== undefined ? `\n  exportTo: ${o.exportTo}` : ''}
  location: MESH_EXTERNAL
  ports: ${o.ports}
  resolution: ${o.resolution}
  endpoints: [${o.addresses.map((a) => `{ address: ${a} }`).join(', ')}]
`;
}

/** A GRPC service on productpage's target port 9080: an inbound conflict with its HTTP port (pilot_conflict_inbound_listener). */
export const PP_GRPC_ON_9080 = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: pp-grpc, namespace: default }
spec:
  hosts: [pp-grpc.default.svc.cluster.local]
  addresses: [10.96.0.21]
  location: MESH_INTERNAL
  ports: [{ number: 9081, name: grpc, protocol: GRPC, targetPort: 9080 }]
  resolution: STATIC
  workloadSelector: { labels: { app: productpage } }
`;

/** A service of one port with no protocol (sniffed) and a VIP, whose endpoint is the productpage sidecar. */
export const LEGACY_SNIFFED_SERVICE = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: legacy, namespace: default }
spec:
  hosts: [legacy.default.svc.cluster.local]
  addresses: [10.96.0.70]
  location: MESH_INTERNAL
  ports: [{ number: 7000, name: legacy }]
  resolution: STATIC
  workloadSelector: { labels: { app: productpage } }`;

/**
 * Two headless services: `cassandra` as the orchestrator registry makes it of a Service with clusterIP
 * None (a ServiceEntry named `orch:<name>`, resolution NONE) with pods 10.1.0.5 and 10.1.0.6 (pod
 * endpoints likewise `orch:` WorkloadEntries), and `legacy-none`, a ServiceEntry with resolution NONE.
 */
export const HEADLESS_SERVICES = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: "orch:cassandra", namespace: default }
spec:
  hosts: [cassandra.default.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 9042, name: tcp-cql, protocol: TCP }]
  resolution: NONE
  workloadSelector: { labels: { app: cassandra } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: "orch:cassandra-0", namespace: default }
spec: { address: 10.1.0.5, labels: { app: cassandra } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: "orch:cassandra-1", namespace: default }
spec: { address: 10.1.0.6, labels: { app: cassandra } }
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: legacy-none, namespace: default }
spec:
  hosts: [legacy-none.default.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 7072, name: tcp, protocol: TCP }]
  resolution: NONE
`;
