/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
/**
 * Sidecar egress listeners on unix domain sockets (`bind: unix://<path>`, port 0), as istiod builds them
 * (buildSidecarOutboundListeners, buildListenerFromEntry with a pipe address, RDS named after the bind,
 * GetEgressListenerForRDS with port 0, mergeAllVirtualHosts), walked by the request simulator.
 */
import assert from 'node:assert/strict';
import { proxyFromNode, proxyRequestPush } from '../../../core/index.js';
import { validate } from '../../protos/validate.js';
import { TYPE_URL } from '../../server/contracts.js';
import { simulateRequest, type SimulatedRequest } from '../../simulator/request-simulator.js';
import { checkConsistency } from './consistency-checker.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const HTTP_SOCK = 'unix:///var/run/mesh/http.sock';
const DB_SOCK = 'unix:///var/run/mesh/db.sock';
const REVIEWS = 'reviews.default.svc.cluster.local';

const UNIX = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: web80, namespace: default }
spec:
  hosts: [web80.default.svc.cluster.local]
  addresses: [10.96.0.80]
  location: MESH_INTERNAL
  ports: [{ number: 80, name: http, protocol: HTTP }]
  resolution: STATIC
  endpoints: [{ address: 127.0.0.80 }]
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: productpage-unix, namespace: default }
spec:
  workloadSelector: { labels: { app: productpage } }
  egress:
  - port: { number: 0, protocol: HTTP, name: uds-http }
    bind: ${HTTP_SOCK}
    hosts: [./reviews.default.svc.cluster.local, ./productpage.default.svc.cluster.local, ./web80.default.svc.cluster.local]
  - port: { number: 0, protocol: TCP, name: uds-db }
    bind: ${DB_SOCK}
    captureMode: NONE
    hosts: [data/db.data.svc.cluster.local]
  - hosts: [./*, data/*]
`;

describe('Sidecar egress listeners on unix domain sockets', () => {
  const { proxy, snap } = sidecarAt(sidecarModel(UNIX));
  const cfg = allSidecarResources(proxy, snap);
  const listener = (name: string): any => cfg.listeners.find((l) => l['name'] === name);

  it('given an HTTP unix socket egress listener should build <bind>_0 on the pipe, bound, its HCM on route configuration <bind>', () => {
    const l = listener(`${HTTP_SOCK}_0`);
    assert.ok(l, cfg.listeners.map((x) => x['name']).join(', '));
    assert.deepEqual(l.address, { pipe: { path: '/var/run/mesh/http.sock' } });
    assert.equal(l.bindToPort, undefined, 'binds the socket');
    assert.equal(l.filterChains.length, 1);
    assert.equal(l.filterChains[0].filterChainMatch, undefined);
    assert.equal(l.filterChains[0].filters[0].typedConfig.rds.routeConfigName, HTTP_SOCK);
  });

  it("given route configuration <bind> should hold the virtual hosts of every HTTP port of the listener's services (only `:port` domains off port 80), by name, then the catch-all", () => {
    const rc: any = cfg.routes.find((r) => r['name'] === HTTP_SOCK);
    assert.ok(rc);
    assert.deepEqual(rc.virtualHosts.map((v: any) => v.name), ['productpage.default.svc.cluster.local:9080', `${REVIEWS}:9080`, 'web80.default.svc.cluster.local:80', 'allow_any']);
    const reviews = rc.virtualHosts[1];
    assert.ok(reviews.domains.includes('reviews:9080') && reviews.domains.includes(`${REVIEWS}:9080`), reviews.domains.join(' '));
    assert.ok(reviews.domains.every((d: string) => d.includes(':')), reviews.domains.join(' '));
    assert.ok(rc.virtualHosts[2].domains.includes('web80'), rc.virtualHosts[2].domains.join(' '));
    assert.equal(rc.ignorePortInHostMatching, true, 'as istiod');
  });

  it("given a TCP unix socket egress listener should tcp_proxy to its one-port service (the catch-all's listeners built beside)", () => {
    assert.ok(listener('0.0.0.0_9080') && listener('10.96.0.30_5432'));
    const l = listener(`${DB_SOCK}_0`);
    assert.deepEqual(l.address, { pipe: { path: '/var/run/mesh/db.sock' } });
    assert.equal(l.filterChains[0].filters.at(-1).typedConfig.cluster, 'outbound|5432||db.data.svc.cluster.local');
  });

  const walks: { name: string; req: SimulatedRequest; want: Record<string, unknown> }[] = [
    {
      name: 'given HTTP over the socket with Host web80 (a port-80 service) should route to it',
      req: { protocol: 'http', unixSocket: '/var/run/mesh/http.sock', port: 80, host: 'web80', path: '/' },
      want: { outcome: 'routed', listener: `${HTTP_SOCK}_0`, routeConfig: HTTP_SOCK, clusters: ['outbound|80||web80.default.svc.cluster.local'] },
    },
    {
      name: "given HTTP over the socket with Host reviews:9080 should take the catch-all, as istiod's (the port is ignored in host matching; 9080 keeps only host:port domains)",
      req: { protocol: 'http', unixSocket: '/var/run/mesh/http.sock', port: 9080, host: 'reviews:9080', path: '/reviews/1', headers: { 'end-user': 'jason' } },
      want: { outcome: 'routed', listener: `${HTTP_SOCK}_0`, routeConfig: HTTP_SOCK, clusters: ['PassthroughCluster'] },
    },
    {
      name: 'given TCP over the db socket should reach db',
      req: { protocol: 'tcp', unixSocket: '/var/run/mesh/db.sock', port: 5432 },
      want: { outcome: 'routed', listener: `${DB_SOCK}_0`, routeConfig: undefined, clusters: ['outbound|5432||db.data.svc.cluster.local'] },
    },
    {
      name: 'given a socket no listener binds should find no listener',
      req: { protocol: 'tcp', unixSocket: '/var/run/other.sock', port: 5432 },
      want: { outcome: 'no-listener', listener: undefined, routeConfig: undefined, clusters: undefined },
    },
  ];
  for (const c of walks) {
    it(c.name, () => {
      const r = simulateRequest(cfg, c.req);
      assert.deepEqual({ outcome: r.outcome, listener: r.listener, routeConfig: r.routeConfig, clusters: r.clusters?.map((x) => x.name) }, c.want);
    });
  }

  it('given every resource should be consistent and protoc-gen-validate clean', () => {
    assert.deepEqual(checkConsistency(cfg), []);
    for (const n of [`${HTTP_SOCK}_0`, `${DB_SOCK}_0`]) assert.deepEqual(validate('envoy.config.listener.v3.Listener', listener(n)), [], n);
    assert.deepEqual(validate('envoy.config.route.v3.RouteConfiguration', cfg.routes.find((r) => r['name'] === HTTP_SOCK)!), []);
  });

  it('given the cached generator should serve the same listeners and the unix route configuration', async () => {
    const p = proxyFromNode(sidecarNode());
    const push = proxyRequestPush(sidecarModel(UNIX).snapshot);
    const gen = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableRdsCache: true });
    const lds = (await gen.generate(p, { typeUrl: TYPE_URL.listener, names: new Set<string>(), wildcard: true }, push)).resources.map((r) => r.name);
    assert.ok(lds.includes(`${HTTP_SOCK}_0`) && lds.includes(`${DB_SOCK}_0`), lds.join(', '));
    const rds = (await gen.generate(p, { typeUrl: TYPE_URL.route, names: new Set([HTTP_SOCK]), wildcard: false }, push)).resources.map((r) => r.name);
    assert.deepEqual(rds, [HTTP_SOCK]);
  });
});
