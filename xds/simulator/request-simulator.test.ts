import assert from 'node:assert/strict';
import type { ProxyConfig } from '../generators/sidecar/consistency-checker.js';
import { allSidecarResources, sidecarAt, sidecarModel, SIDECAR_MESH } from '../generators/sidecar/testing/sidecar-mesh.js';
import { simulateRequest, type SimulatedRequest, type SimulationResult } from './request-simulator.js';

const REVIEWS = 'reviews.default.svc.cluster.local';
const MTLS = { tls: true, alpn: ['mesh-peer-exchange', 'mesh'] } as const;

function config(yaml = SIDECAR_MESH, mesh = {}): ProxyConfig {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml, mesh));
  return allSidecarResources(proxy, snap);
}

/** The outcome in short: outcome, listener, chain, route, and cluster:weight -> endpoints. */
function short(r: SimulationResult): Record<string, unknown> {
  return {
    outcome: r.outcome,
    listener: r.listener,
    ...(r.route !== undefined ? { route: r.route } : {}),
    ...(r.clusters ? { clusters: r.clusters.map((c) => `${c.name}:${c.weight} -> ${c.endpoints.join(',')}`) } : {}),
  };
}

const PERMISSIVE = SIDECAR_MESH.replace('mode: STRICT', 'mode: PERMISSIVE');
const REDIRECT = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: pp, namespace: default }
spec:
  hosts: [productpage]
  http:
  - match: [{ uri: { exact: /old }, queryParams: { v: { exact: "1" } } }]
    redirect: { uri: /new }
  - match: [{ method: { exact: DELETE } }]
    directResponse: { status: 405 }
  - route: [{ destination: { host: productpage } }]
`;

describe('simulateRequest over the sidecar configuration', () => {
  const cases: { name: string; yaml?: string; mesh?: object; req: SimulatedRequest; want: Record<string, unknown> }[] = [
    {
      name: 'given the header match of the VirtualService should go to subset v2 and its endpoint',
      req: { address: '10.96.0.10', port: 9080, host: 'reviews:9080', path: '/reviews/1', headers: { 'End-User': 'jason' } },
      want: { outcome: 'routed', listener: '0.0.0.0_9080', route: 'jason', clusters: [`outbound|9080|v2|${REVIEWS}:100 -> 127.0.0.22:9080`] },
    },
    {
      name: 'given the header but another path prefix should fall through to the 80/20 split',
      req: { address: '10.96.0.10', port: 9080, host: 'reviews.default', path: '/ratings', headers: { 'end-user': 'jason' } },
      want: { outcome: 'routed', listener: '0.0.0.0_9080', route: 'split', clusters: [`outbound|9080|v1|${REVIEWS}:80 -> 127.0.0.21:9080`, `outbound|9080|v2|${REVIEWS}:20 -> 127.0.0.22:9080`] },
    },
    {
      name: 'given a service without VirtualService by FQDN and port should take the default route',
      req: { address: '10.96.0.20', port: 9080, host: 'productpage.default.svc.cluster.local:9080' },
      want: { outcome: 'routed', listener: '0.0.0.0_9080', route: 'default', clusters: ['outbound|9080||productpage.default.svc.cluster.local:100 -> 10.0.0.1:9080'] },
    },
    {
      name: 'given an unknown host on a known HTTP port with ALLOW_ANY should pass through',
      req: { address: '93.184.216.34', port: 9080, host: 'example.com' },
      want: { outcome: 'routed', listener: '0.0.0.0_9080', route: 'allow_any', clusters: ['PassthroughCluster:100 -> 93.184.216.34:9080'] },
    },
    {
      name: 'given an unknown host with REGISTRY_ONLY should get a 502 from block_all',
      mesh: { outboundTrafficPolicy: { mode: 'REGISTRY_ONLY' } },
      req: { address: '93.184.216.34', port: 9080, host: 'example.com' },
      want: { outcome: 'direct-response', listener: '0.0.0.0_9080', route: 'block_all' },
    },
    {
      name: 'given TCP to the database VIP should take its tcp_proxy to the database endpoint',
      req: { protocol: 'tcp', address: '10.96.0.30', port: 5432 },
      want: { outcome: 'routed', listener: '10.96.0.30_5432', clusters: ['outbound|5432||db.data.svc.cluster.local:100 -> 127.0.0.31:5432'] },
    },
    {
      name: 'given TCP to an unknown address with ALLOW_ANY should stay on virtualOutbound and pass through',
      req: { protocol: 'tcp', address: '1.2.3.4', port: 1234 },
      want: { outcome: 'routed', listener: 'virtualOutbound', clusters: ['PassthroughCluster:100 -> 1.2.3.4:1234'] },
    },
    {
      name: 'given TCP to an unknown address with REGISTRY_ONLY should go to BlackHoleCluster',
      mesh: { outboundTrafficPolicy: { mode: 'REGISTRY_ONLY' } },
      req: { protocol: 'tcp', address: '1.2.3.4', port: 1234 },
      want: { outcome: 'routed', listener: 'virtualOutbound', clusters: ['BlackHoleCluster:100 -> '] },
    },
    {
      name: 'given a redirect match with query parameter should redirect',
      yaml: REDIRECT,
      req: { address: '10.96.0.20', port: 9080, host: 'productpage', path: '/old?v=1' },
      want: { outcome: 'redirect', listener: '0.0.0.0_9080', route: 'default/pp/0' },
    },
    {
      name: 'given the redirect path without its query parameter should take the route below',
      yaml: REDIRECT,
      req: { address: '10.96.0.20', port: 9080, host: 'productpage', path: '/old' },
      want: { outcome: 'routed', listener: '0.0.0.0_9080', route: 'default/pp/2', clusters: ['outbound|9080||productpage.default.svc.cluster.local:100 -> 10.0.0.1:9080'] },
    },
    {
      name: 'given a method match with a direct response should answer it',
      yaml: REDIRECT,
      req: { address: '10.96.0.20', port: 9080, host: 'productpage', method: 'DELETE' },
      want: { outcome: 'direct-response', listener: '0.0.0.0_9080', route: 'default/pp/1' },
    },
    {
      name: 'given inbound mTLS to the app port under STRICT should reach inbound|9080||',
      req: { direction: 'inbound', address: '10.0.0.1', port: 9080, host: 'productpage:9080', ...MTLS },
      want: { outcome: 'routed', listener: 'virtualInbound', route: 'default', clusters: ['inbound|9080||:100 -> 10.0.0.1:9080'] },
    },
    {
      name: 'given inbound plaintext under STRICT should match no filter chain (the connection is refused)',
      req: { direction: 'inbound', address: '10.0.0.1', port: 9080, host: 'productpage:9080' },
      want: { outcome: 'no-filter-chain', listener: 'virtualInbound' },
    },
    {
      name: 'given inbound plaintext under PERMISSIVE should reach inbound|9080||',
      yaml: PERMISSIVE,
      req: { direction: 'inbound', address: '10.0.0.1', port: 9080, host: 'productpage:9080' },
      want: { outcome: 'routed', listener: 'virtualInbound', route: 'default', clusters: ['inbound|9080||:100 -> 10.0.0.1:9080'] },
    },
    {
      name: 'given inbound plaintext TCP to a port the app does not serve under PERMISSIVE should pass through',
      yaml: PERMISSIVE,
      req: { direction: 'inbound', protocol: 'tcp', address: '10.0.0.1', port: 7777 },
      want: { outcome: 'routed', listener: 'virtualInbound', clusters: ['InboundPassthroughCluster:100 -> 10.0.0.1:7777'] },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(short(simulateRequest(config(c.yaml, c.mesh), c.req)), c.want));

  it('given a routed request should name the VirtualService behind the route', () => {
    const r = simulateRequest(config(), { address: '10.96.0.10', port: 9080, host: 'reviews', headers: { 'end-user': 'jason' }, path: '/reviews' });
    assert.deepEqual(r.sources, ['VirtualService/default/reviews@4']);
  });

  it('given a route to a cluster CDS lacks should say no-cluster', () => {
    const cfg = config();
    const r = simulateRequest({ ...cfg, clusters: cfg.clusters.filter((c) => c['name'] !== `outbound|9080|v2|${REVIEWS}`) }, { address: '10.96.0.10', port: 9080, host: 'reviews', path: '/reviews', headers: { 'end-user': 'jason' } });
    assert.equal(r.outcome, 'no-cluster');
  });

  it('given a chain with the sni_cluster filter should send a TLS connection to the cluster its SNI names, and plaintext to the tcp_proxy cluster', () => {
    const tcpProxy = { name: 'envoy.filters.network.tcp_proxy', typedConfig: { '@type': 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy', statPrefix: 'x', cluster: 'BlackHoleCluster' } };
    const staticCluster = (name: string, ip: string): Record<string, unknown> => ({ name, type: 'STATIC', loadAssignment: { clusterName: name, endpoints: [{ lbEndpoints: [{ endpoint: { address: { socketAddress: { address: ip, portValue: 9080 } } } }] }] } });
    const cfg: ProxyConfig = {
      listeners: [{ name: '0.0.0.0_15443', address: { socketAddress: { address: '0.0.0.0', portValue: 15443 } }, filterChains: [{ filters: [{ name: 'envoy.filters.network.sni_cluster' }, tcpProxy] }] }],
      clusters: [staticCluster('outbound_.9080_._.a.example.com', '10.1.1.1'), { name: 'BlackHoleCluster', type: 'STATIC' }],
      routes: [],
      endpoints: [],
    };
    const tls = simulateRequest(cfg, { protocol: 'tls', address: '10.0.9.9', port: 15443, sni: 'outbound_.9080_._.a.example.com' });
    assert.deepEqual(tls.clusters, [{ name: 'outbound_.9080_._.a.example.com', weight: 100, endpoints: ['10.1.1.1:9080'] }]);
    assert.equal(simulateRequest(cfg, { protocol: 'tcp', address: '10.0.9.9', port: 15443 }).clusters?.[0]?.name, 'BlackHoleCluster');
  });

  it('given localities at several priorities should pick the endpoints of the first priority that has any', () => {
    const cluster = { name: 'c', type: 'EDS', edsClusterConfig: { serviceName: 'c' } };
    const group = (priority: number, ip: string): Record<string, unknown> => ({ priority, lbEndpoints: ip ? [{ endpoint: { address: { socketAddress: { address: ip, portValue: 80 } } } }] : [] });
    const cfg: ProxyConfig = {
      listeners: [{ name: '10.2.0.1_80', address: { socketAddress: { address: '10.2.0.1', portValue: 80 } }, filterChains: [{ filters: [{ name: 'envoy.filters.network.tcp_proxy', typedConfig: { '@type': 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy', statPrefix: 'c', cluster: 'c' } }] }] }],
      clusters: [cluster],
      routes: [],
      endpoints: [{ clusterName: 'c', endpoints: [group(2, '10.3.0.3'), group(0, ''), group(1, '10.3.0.2')] }],
    };
    assert.deepEqual(simulateRequest(cfg, { protocol: 'tcp', address: '10.2.0.1', port: 80 }).clusters?.[0]?.endpoints, ['10.3.0.2:80']);
  });
});
