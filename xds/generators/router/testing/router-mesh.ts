/**
 * A gateway on top of the sidecar test mesh, for router generator tests: the ingress gateway's service
 * (ports 80 -> 8080, 443 -> 8443, 15443 and 5432 as they are) and pod, Gateways `public` (HTTP and
 * HTTPS for shop.example.com, PASSTHROUGH for secure.example.com, TCP for db) and `internal` (HTTP with
 * httpsRedirect for admin.example.com, AUTO_PASSTHROUGH on 15443) and VirtualServices bound to them.
 */
import { proxyFromNode, proxyRequestPush, type MeshModel, type Proxy, type ProxyNode, type PushSnapshot } from '../../../../core/index.js';
import { TYPE_URL } from '../../../server/contracts.js';
import type { ProxyConfig } from '../../sidecar/consistency-checker.js';
import { edsNamesOf, rdsNamesOf, SIDECAR_MESH } from '../../sidecar/testing/sidecar-mesh.js';
import { buildRouterResources, type RouterGeneratorOptions } from '../router-generator.js';

/** The gateway part (YAML), without the sidecar mesh. */
export const GATEWAY_YAML = `
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: ingress, namespace: mesh-system }
spec:
  hosts: [ingress.mesh-system.svc.cluster.local]
  addresses: [10.96.9.9]
  location: MESH_INTERNAL
  ports:
  - { number: 80, name: http, protocol: HTTP, targetPort: 8080 }
  - { number: 443, name: https, protocol: HTTPS, targetPort: 8443 }
  resolution: STATIC
  workloadSelector: { labels: { app: ingress } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: ingress-1, namespace: mesh-system }
spec: { address: 10.0.9.9, labels: { app: ingress, mesh: ingressgateway } }
---
apiVersion: networking.mesh.io/v1
kind: Gateway
metadata: { name: public, namespace: default, generation: 5, creationTimestamp: "2026-01-01T00:00:00Z" }
spec:
  selector: { mesh: ingressgateway }
  servers:
  - port: { number: 80, name: http, protocol: HTTP }
    hosts: [default/shop.example.com]
  - port: { number: 443, name: https, protocol: HTTPS }
    hosts: [default/shop.example.com]
    tls: { mode: SIMPLE, credentialName: shop-cert }
  - port: { number: 443, name: tls-passthrough, protocol: TLS }
    hosts: [default/secure.example.com]
    tls: { mode: PASSTHROUGH }
  - port: { number: 5432, name: tcp, protocol: TCP }
    hosts: [data/db.example.com]
---
apiVersion: networking.mesh.io/v1
kind: Gateway
metadata: { name: internal, namespace: mesh-system, creationTimestamp: "2026-01-02T00:00:00Z" }
spec:
  selector: { mesh: ingressgateway }
  servers:
  - port: { number: 80, name: http, protocol: HTTP }
    hosts: ["*/admin.example.com"]
    tls: { httpsRedirect: true }
  - port: { number: 15443, name: tls, protocol: TLS }
    hosts: ["*/*.default.svc.cluster.local"]
    tls: { mode: AUTO_PASSTHROUGH }
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: shop, namespace: default, generation: 7 }
spec:
  hosts: [shop.example.com]
  gateways: [public]
  http:
  - name: only-internal
    match: [{ uri: { prefix: /internal }, gateways: [mesh-system/internal] }]
    route: [{ destination: { host: reviews } }]
  - name: reviews
    match: [{ uri: { prefix: /reviews } }]
    route: [{ destination: { host: reviews, subset: v2 } }]
  - name: pages
    route: [{ destination: { host: productpage } }]
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: mesh-only, namespace: default }
spec:
  hosts: [shop.example.com]
  http:
  - name: never-at-the-gateway
    route: [{ destination: { host: reviews } }]
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: secure, namespace: default }
spec:
  hosts: [secure.example.com]
  gateways: [default/public]
  tls:
  - match: [{ sniHosts: [secure.example.com] }]
    route: [{ destination: { host: productpage, port: { number: 9080 } } }]
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: db, namespace: data }
spec:
  hosts: [db.example.com]
  gateways: [public.default]
  tcp:
  - route: [{ destination: { host: db.data.svc.cluster.local } }]
`;

/** The sidecar test mesh plus the gateway. */
export const ROUTER_MESH = `${SIDECAR_MESH}\n---\n${GATEWAY_YAML}`;

/** The router node of the ingress gateway pod (10.0.9.9) in `mesh-system`. */
export function routerNode(over: Partial<ProxyNode> = {}): ProxyNode {
  return {
    id: 'router~10.0.9.9~ingress-1.mesh-system~mesh-system.svc.cluster.local',
    type: 'router',
    ipAddresses: ['10.0.9.9'],
    podName: 'ingress-1',
    namespace: 'mesh-system',
    dnsDomain: 'mesh-system.svc.cluster.local',
    metadata: { LABELS: { app: 'ingress', mesh: 'ingressgateway' }, NAMESPACE: 'mesh-system' },
    proxyless: false,
    ...over,
  };
}

/** The router and the push snapshot of a model. */
export function routerAt(model: MeshModel, node = routerNode()): { proxy: Proxy; snap: PushSnapshot } {
  const snap = proxyRequestPush(model.snapshot).snapshot;
  if (!snap) throw new Error('the model published no snapshot');
  return { proxy: proxyFromNode(node), snap };
}

/** Every resource a router gets, following references as Envoy does (LDS/CDS wildcard, then RDS and EDS names); `more` adds generator options. */
export function allRouterResources(p: Proxy, snap: PushSnapshot, more: Omit<RouterGeneratorOptions, 'sendUnhealthyEndpoints'> = {}): ProxyConfig {
  const opts = { sendUnhealthyEndpoints: false, ...more };
  const listeners = [...buildRouterResources(p, TYPE_URL.listener, snap, undefined, opts).values()];
  const clusters = [...buildRouterResources(p, TYPE_URL.cluster, snap, undefined, opts).values()];
  const routes = [...buildRouterResources(p, TYPE_URL.route, snap, rdsNamesOf(listeners), opts).values()];
  const endpoints = [...buildRouterResources(p, TYPE_URL.endpoint, snap, edsNamesOf(clusters), opts).values()];
  return { listeners, routes, clusters, endpoints };
}
