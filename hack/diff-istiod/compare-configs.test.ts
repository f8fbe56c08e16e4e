import assert from 'node:assert/strict';
import { encode, toJson, type ProxyConfig } from '../../xds/index.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from '../../xds/generators/sidecar/testing/sidecar-mesh.js';
import { clusterLbShape, clusterTlsShape, compareProxyConfigs, explain, hcmShape, istioRequest, listenerAddressShape, listenerTlsShape, outcomeLine, routeHashShape, tcpHashShape } from './compare-configs.js';
import { edsNames, rdsNames } from './fetch-proxy-config.js';
import { simulateRequest } from '../../xds/index.js';

const SPLIT = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews, namespace: default }
spec:
  host: reviews.default.svc.cluster.local
  subsets: [{ name: v1, labels: { version: v1 } }, { name: v2, labels: { version: v2 } }]
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: reviews, namespace: default }
spec:
  hosts: [reviews]
  http: [{ route: [{ destination: { host: reviews, subset: v1 }, weight: WEIGHT }, { destination: { host: reviews, subset: v2 }, weight: REST }] }]
`;
const built = (w: number): ProxyConfig => {
  const { proxy, snap } = sidecarAt(sidecarModel(SPLIT.replace('WEIGHT', String(w)).replace('REST', String(100 - w))));
  return allSidecarResources(proxy, snap);
};
const MESSAGES = {
  listeners: 'envoy.config.listener.v3.Listener',
  clusters: 'envoy.config.cluster.v3.Cluster',
  routes: 'envoy.config.route.v3.RouteConfiguration',
  endpoints: 'envoy.config.endpoint.v3.ClusterLoadAssignment',
} as const;
/** The configuration as the ADS client sees it: encoded on the wire, decoded to protobuf JSON. */
const wire = (cfg: ProxyConfig): ProxyConfig => {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const [k, type] of Object.entries(MESSAGES)) out[k] = cfg[k as keyof typeof MESSAGES].map((r) => toJson(type, encode(type, r), { fieldNames: 'json' }) as Record<string, unknown>);
  return out as unknown as ProxyConfig;
};
const REQ = [{ label: 'reviews', request: { address: '10.96.0.10', port: 9080, host: 'reviews:9080', path: '/' } }];

describe('compareProxyConfigs (the differential check against istiod)', () => {
  it('given a configuration decoded from the wire, should route every request as the built objects do', () => {
    const cfg = built(80);
    const reqs = [...REQ, { label: 'db', request: { protocol: 'tcp' as const, address: '10.96.0.30', port: 5432 } }];
    for (const { request } of reqs) assert.equal(outcomeLine(simulateRequest(wire(cfg), request)), outcomeLine(simulateRequest(cfg, request)));
    assert.match(outcomeLine(simulateRequest(wire(cfg), REQ[0]!.request)), /^routed outbound\|9080\|v1\|reviews\.default\.svc\.cluster\.local\(80\)\[127\.0\.0\.21:9080\] outbound\|9080\|v2\|.*\(20\)\[127\.0\.0\.22:9080\]$/);
  });

  it('given two servers that split traffic differently, should report the request as different', () => {
    const c = compareProxyConfigs(wire(built(80)), wire(built(70)), REQ);
    assert.equal(c.outcomes[0]!.same, false);
    assert.match(c.outcomes[0]!.meshd, /\(80\)/);
    assert.match(c.outcomes[0]!.istiod, /\(70\)/);
    assert.equal(compareProxyConfigs(wire(built(80)), wire(built(80)), REQ).outcomes[0]!.same, true);
  });

  it('given a cluster only one side sends, should list it on that side', () => {
    const a = built(80);
    const b = { ...a, clusters: a.clusters.filter((c) => c['name'] !== 'BlackHoleCluster') };
    const names = compareProxyConfigs(a, b, []).names.find((n) => n.type === 'cluster')!;
    assert.deepEqual(names.onlyMeshd, ['BlackHoleCluster']);
    assert.deepEqual(names.onlyIstiod, []);
    assert.deepEqual(explain(['BlackHoleCluster', 'x'], [{ pattern: /^Black/, why: 'because' }]), { explained: ['BlackHoleCluster (because)'], unexplained: ['x'] });
  });

  it('given decoded listeners and clusters, should ask for the RDS and EDS names Envoy would', () => {
    const cfg = wire(built(80));
    assert.deepEqual(rdsNames(cfg.listeners), ['9080']);
    assert.ok(edsNames(cfg.clusters).includes('outbound|9080|v1|reviews.default.svc.cluster.local'));
    assert.deepEqual(istioRequest({ port: 1, alpn: ['mesh-peer-exchange', 'mesh', 'h2'] }).alpn, ['istio-peer-exchange', 'istio', 'h2']);
  });

  it('given inbound mesh mTLS on the wire, should name the secrets the terminating chain serves in the outcome', () => {
    const cfg = wire(built(80));
    const line = outcomeLine(simulateRequest(cfg, { direction: 'inbound', address: '10.0.0.1', port: 9080, host: 'productpage:9080', tls: true, alpn: ['mesh-peer-exchange', 'mesh'] }));
    assert.match(line, /^routed tls\{default,ROOTCA\} inbound\|9080\|\|\(100\)\[10\.0\.0\.1:9080\]$/);
  });

  it('given listeners built with different HCM options, should report the listeners whose HCM settings differ', () => {
    const { proxy, snap } = sidecarAt(sidecarModel(SIDECAR_MESH));
    const a = wire(allSidecarResources(proxy, snap));
    const b = wire(allSidecarResources(proxy, snap, { listener: { useRemoteAddress: true, http10: true, alpnFilter: false } }));
    const http = a.listeners.find((l) => l['name'] === '0.0.0.0_9080')!;
    assert.equal(hcmShape(http), 'useRemoteAddress=false http10=false internal=[] alpn=true');
    assert.equal(hcmShape(b.listeners.find((l) => l['name'] === '0.0.0.0_9080')!), 'useRemoteAddress=true http10=true internal=[] alpn=false');
    const c = compareProxyConfigs(a, b, []);
    assert.deepEqual(c.hcm.differ.map((d) => d.name), ['0.0.0.0_9080', 'virtualInbound']);
    assert.equal(compareProxyConfigs(a, a, []).hcm.differ.length, 0);
  });

  it('given the wire form, should compare the upstream TLS secrets, the DNS lookup family and the listener addresses (file certificates and IPv6 by structure)', () => {
    const { proxy, snap } = sidecarAt(sidecarModel(SIDECAR_MESH));
    const a = wire(allSidecarResources(proxy, snap));
    const b = wire(allSidecarResources(proxy, snap, { listener: { dualStack: true, ipv4OutboundForIpv6: true } }));
    const reviews = a.clusters.find((c) => c['name'] === 'outbound|9080||reviews.default.svc.cluster.local')!;
    assert.equal(clusterTlsShape(reviews), 'ROOTCA,default params=TLSv1_2-TLSv1_3');
    // NOTE: a TLS context without tls_params (what meshd sent before) is told apart from istiod's.
    const bare = JSON.parse(JSON.stringify(reviews).replace(/"tlsParams":\{[^}]*\},?/g, '')) as typeof reviews;
    assert.equal(clusterTlsShape(bare), 'ROOTCA,default params=unset');
    const inbound = a.listeners.find((l) => l['name'] === 'virtualInbound')!;
    assert.equal(listenerTlsShape(inbound), 'TLSv1_2-TLSv1_3 cipherSuites=ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:AES256-GCM-SHA384:AES128-GCM-SHA256');
    const bareInbound = JSON.parse(JSON.stringify(inbound).replace(/"tlsParams":\{[^}]*\},?/g, '')) as typeof inbound;
    const withBare = { ...a, listeners: a.listeners.map((l) => (l === inbound ? bareInbound : l)) };
    assert.deepEqual(compareProxyConfigs(withBare, a, []).listenerTls.differ.map((d) => [d.name, d.meshd]), [['virtualInbound', 'unset']]);
    assert.match(clusterLbShape(a.clusters.find((c) => c['name'] === 'outbound|443||api.example.com')!), /^type=STRICT_DNS\/V4_ONLY /);
    assert.equal(listenerAddressShape(a.listeners.find((l) => l['name'] === 'virtualOutbound')!), '0.0.0.0:15001');
    assert.equal(listenerAddressShape({ address: { socketAddress: { address: '::', portValue: 15001 } }, additionalAddresses: [{ address: { socketAddress: { address: '0.0.0.0', portValue: 15001 } } }] }), ':::15001 0.0.0.0:15001');
    const v6 = sidecarAt(sidecarModel(SIDECAR_MESH), { ...sidecarNode(), ipAddresses: ['fd00::1'] });
    const c = compareProxyConfigs(a, wire(allSidecarResources(v6.proxy, v6.snap)), []);
    assert.ok(c.clusterLb.differ.some((d) => d.name === 'outbound|443||api.example.com' && d.istiod.startsWith('type=STRICT_DNS/V6_ONLY')));
    assert.ok(c.listenerAddresses.differ.some((d) => d.name === 'virtualOutbound' && d.istiod === ':::15001'));
    assert.deepEqual(compareProxyConfigs(a, b, []).clusterTls.differ, []);
  });

  it('given a consistent hash on one side only, should report the virtual hosts whose route hash policies and retry host predicates differ', () => {
    const hashed = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: productpage, namespace: default }
spec:
  host: productpage.default.svc.cluster.local
  trafficPolicy: { loadBalancer: { consistentHash: { httpCookie: { name: sticky, ttl: 30s } } } }
`;
    const at = (yaml: string): ProxyConfig => {
      const { proxy, snap } = sidecarAt(sidecarModel(yaml));
      return wire(allSidecarResources(proxy, snap));
    };
    const [plain, withHash] = [at(SIDECAR_MESH), at(hashed)];
    const c = compareProxyConfigs(withHash, plain, []);
    assert.deepEqual(c.routeHash.differ.map((d) => d.name), ['9080/productpage.default.svc.cluster.local:9080']);
    assert.equal(c.routeHash.differ[0]!.meshd, 'hash=[{"cookie":{"name":"sticky","ttl":"30s"}}] retryHosts=envoy.retry_host_predicates.previous_hosts');
    assert.equal(c.routeHash.differ[0]!.istiod, 'hash=none retryHosts=envoy.retry_host_predicates.previous_hosts');
    // NOTE: SIDECAR_MESH's reviews routes: the jason route to subset v2 hashes on x-user and retries on the same host.
    const reviews = plain.routes.find((r) => r['name'] === '9080')!['virtualHosts'] as Record<string, unknown>[];
    assert.match(routeHashShape(reviews.find((v) => v['name'] === 'reviews.default.svc.cluster.local:9080')!), /^hash=\[\{"header":\{"headerName":"x-user"\}\}\] retryHosts=none ; /);
    assert.ok(c.routeHash.same > 0);
    assert.equal(compareProxyConfigs(withHash, withHash, []).routeHash.differ.length, 0);
  });

  it('given a source-IP hash on one side only, should report the listeners whose tcp_proxy hash policies differ', () => {
    const hashed = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: db, namespace: data }
spec:
  host: db.data.svc.cluster.local
  trafficPolicy: { loadBalancer: { consistentHash: { useSourceIp: true } } }
`;
    const at = (yaml: string): ProxyConfig => {
      const { proxy, snap } = sidecarAt(sidecarModel(yaml));
      return wire(allSidecarResources(proxy, snap));
    };
    const c = compareProxyConfigs(at(hashed), at(SIDECAR_MESH), []);
    assert.deepEqual(c.tcpHash.differ, [{ name: '10.96.0.30_5432', meshd: '[{"sourceIp":{}}]', istiod: 'none' }]);
    assert.ok(c.tcpHash.same > 0);
    assert.equal(tcpHashShape({ name: 'x', filterChains: [] }), '');
  });

  it('given a Sidecar inbound connection pool on one side, should report the inbound cluster whose limits and timeouts differ', () => {
    const pooled = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: pool, namespace: default }
spec:
  workloadSelector: { labels: { app: productpage } }
  inboundConnectionPool: { tcp: { maxConnections: 50, connectTimeout: 2s }, http: { idleTimeout: 15s } }
`;
    const plain = wire(allSidecarResources(sidecarAt(sidecarModel(SIDECAR_MESH)).proxy, sidecarAt(sidecarModel(SIDECAR_MESH)).snap));
    const { proxy, snap } = sidecarAt(sidecarModel(pooled));
    const withPool = wire(allSidecarResources(proxy, snap));
    const c = compareProxyConfigs(withPool, plain, []);
    assert.deepEqual(c.clusterLb.differ.map((d) => d.name), ['inbound|9080||']);
    assert.match(c.clusterLb.differ[0]!.meshd, /limits=50\/4294967295\/4294967295\/4294967295 connectTimeout=2s idle=15s$/);
    assert.match(c.clusterLb.differ[0]!.istiod, /limits=4294967295\/4294967295\/4294967295\/4294967295 connectTimeout=10s idle=unset$/);
  });
});
