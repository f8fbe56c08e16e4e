/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { encode } from '../../protos/codec.js';
import { validate } from '../../protos/validate.js';
import { simulateRequest } from '../../simulator/request-simulator.js';
import { checkConsistency } from './consistency-checker.js';
import { ENVOY } from './sidecar-names.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const MESH = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: db, namespace: data }
spec:
  host: db.data.svc.cluster.local
  subsets: [{ name: primary, labels: { app: db } }, { name: replica, labels: { app: db } }]
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: db, namespace: data }
spec:
  hosts: [db.data.svc.cluster.local]
  tcp:
  - match: [{ sourceLabels: { app: batch } }]
    route: [{ destination: { host: db.data.svc.cluster.local, subset: replica } }]
  - route:
    - { destination: { host: db.data.svc.cluster.local, subset: primary }, weight: 90 }
    - { destination: { host: db.data.svc.cluster.local, subset: replica }, weight: 10 }
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: apis, namespace: default }
spec:
  hosts: [api2.example.com]
  location: MESH_EXTERNAL
  ports: [{ number: 443, name: tls, protocol: TLS }]
  resolution: DNS
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: api, namespace: default }
spec:
  hosts: [api.example.com]
  tls:
  - match: [{ sniHosts: [api.example.com, alias.example.com] }]
    route: [{ destination: { host: api2.example.com } }]
`;

function config(labels: Record<string, string> = { app: 'productpage' }): ReturnType<typeof allSidecarResources> {
  const { proxy, snap } = sidecarAt(sidecarModel(MESH), sidecarNode({ metadata: { LABELS: labels, NAMESPACE: 'default' } }));
  return allSidecarResources(proxy, snap);
}

const route = (cfg: ReturnType<typeof config>, req: Parameters<typeof simulateRequest>[1]): string[] =>
  (simulateRequest(cfg, req).clusters ?? []).map((c) => `${c.name}:${c.weight}`);

describe('sidecar TCP and TLS listeners with VirtualService tcp/tls routes', () => {
  it('given a weighted tcp route should split the TCP listener between subsets', () => {
    const cfg = config();
    assert.deepEqual(checkConsistency(cfg), []);
    assert.deepEqual(route(cfg, { protocol: 'tcp', address: '10.96.0.30', port: 5432 }), ['outbound|5432|primary|db.data.svc.cluster.local:90', 'outbound|5432|replica|db.data.svc.cluster.local:10']);
  });

  it('given a tcp route matching the source labels should send that workload to its destination only', () => {
    assert.deepEqual(route(config({ app: 'batch' }), { protocol: 'tcp', address: '10.96.0.30', port: 5432 }), ['outbound|5432|replica|db.data.svc.cluster.local:100']);
  });

  const tls: { name: string; sni: string; want: string[] }[] = [
    { name: 'given the SNI of a tls route should go to its destination', sni: 'alias.example.com', want: ['outbound|443||api2.example.com:100'] },
    { name: 'given the host SNI claimed by the tls route should follow the route, not the host cluster', sni: 'api.example.com', want: ['outbound|443||api2.example.com:100'] },
    { name: 'given the SNI of another TLS service on the port should go to its own cluster', sni: 'api2.example.com', want: ['outbound|443||api2.example.com:100'] },
    { name: 'given an unknown SNI should pass through (ALLOW_ANY, as istiod)', sni: 'nope.example.com', want: ['PassthroughCluster:100'] },
  ];
  for (const c of tls) it(c.name, () => assert.deepEqual(route(config(), { protocol: 'tls', port: 443, sni: c.sni, address: '203.0.113.9' }), c.want));

  it('given TLS services sharing a port should put one chain per SNI on one listener', () => {
    const l: any = config().listeners.find((x) => x['name'] === '0.0.0.0_443');
    assert.deepEqual(l.filterChains.map((c: any) => c.filterChainMatch.serverNames), [['api.example.com', 'alias.example.com'], ['api2.example.com']]);
  });

  it('given weighted tcp_proxy and SNI chains should pass protoc-gen-validate', function () {
    this.timeout(60_000);
    for (const l of config().listeners) assert.deepEqual(validate(ENVOY.listener, encode(ENVOY.listener, l)), [], `listener ${String(l['name'])}`);
  });
});
