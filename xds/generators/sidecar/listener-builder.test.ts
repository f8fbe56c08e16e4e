/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { buildSidecarListeners } from './listener-builder.js';
import { simulateRequest } from '../../simulator/request-simulator.js';
import { allSidecarResources, sidecarAt, sidecarModel, SIDECAR_MESH } from './testing/sidecar-mesh.js';

function listeners(yaml = SIDECAR_MESH, mesh = {}): Map<string, any> {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml, mesh));
  return new Map(buildSidecarListeners(snap.pushContext, proxy, snap.endpoints).map((l) => [l['name'] as string, l]));
}

const chainNames = (l: any): string[] => l.filterChains.map((c: any) => c.name);
const firstFilter = (chain: any): any => chain.filters[0].typedConfig;
const PERMISSIVE = SIDECAR_MESH.replace('spec: { mtls: { mode: STRICT } }', 'spec: { mtls: { mode: PERMISSIVE } }');
const DISABLE = SIDECAR_MESH.replace('spec: { mtls: { mode: STRICT } }', 'spec: { mtls: { mode: DISABLE } }');

describe('sidecar listener builder', () => {
  const cases: { name: string; yaml?: string; mesh?: object; listener: string; check: (l: any) => void }[] = [
    {
      name: 'given ALLOW_ANY should serve virtualOutbound on 0.0.0.0:15001 with original dst to PassthroughCluster',
      listener: 'virtualOutbound',
      check: (l) => {
        assert.deepEqual(l.address.socketAddress, { address: '0.0.0.0', portValue: 15001 });
        assert.deepEqual(l.useOriginalDst, { value: true });
        assert.deepEqual(chainNames(l), ['virtualOutbound-catchall-tcp']);
        assert.equal(firstFilter(l.filterChains[0]).cluster, 'PassthroughCluster');
      },
    },
    {
      name: 'given REGISTRY_ONLY should send unknown destinations to BlackHoleCluster',
      mesh: { outboundTrafficPolicy: { mode: 'REGISTRY_ONLY' } },
      listener: 'virtualOutbound',
      check: (l) => {
        assert.deepEqual(chainNames(l), ['virtualOutbound-blackhole']);
        assert.equal(firstFilter(l.filterChains[0]).cluster, 'BlackHoleCluster');
      },
    },
    {
      name: 'given STRICT mTLS should serve only mTLS chains on virtualInbound 15006',
      listener: 'virtualInbound',
      check: (l) => {
        assert.deepEqual(l.address.socketAddress, { address: '0.0.0.0', portValue: 15006 });
        assert.deepEqual(l.listenerFilters.map((f: any) => f.name), ['envoy.filters.listener.original_dst', 'envoy.filters.listener.tls_inspector', 'envoy.filters.listener.http_inspector']);
        assert.deepEqual(chainNames(l), ['inbound|9080||-mtls', 'virtualInbound-mtls']);
        const tls = l.filterChains[0].transportSocket.typedConfig;
        assert.equal(tls.requireClientCertificate.value, true);
        assert.equal(tls.commonTlsContext.tlsCertificateSdsSecretConfigs[0].name, 'default');
        assert.equal(tls.commonTlsContext.combinedValidationContext.validationContextSdsSecretConfig.name, 'ROOTCA');
        assert.deepEqual(l.filterChains[0].filterChainMatch, { destinationPort: { value: 9080 }, transportProtocol: 'tls', applicationProtocols: ['mesh-peer-exchange', 'mesh'] });
      },
    },
    {
      name: 'given PERMISSIVE mTLS should serve mTLS and plaintext chains per port and for passthrough',
      yaml: PERMISSIVE,
      listener: 'virtualInbound',
      check: (l) => {
        assert.deepEqual(chainNames(l), ['inbound|9080||-mtls', 'inbound|9080||-plaintext', 'virtualInbound-mtls', 'virtualInbound']);
        assert.equal(l.filterChains[1].filterChainMatch.transportProtocol, 'raw_buffer');
        assert.equal(l.filterChains[1].transportSocket, undefined);
      },
    },
    {
      name: 'given DISABLE mTLS should serve plaintext chains only',
      yaml: DISABLE,
      listener: 'virtualInbound',
      check: (l) => assert.deepEqual(chainNames(l), ['inbound|9080||-plaintext', 'virtualInbound']),
    },
    {
      name: 'given an inbound HTTP port should route through an HCM to inbound|<port>||',
      listener: 'virtualInbound',
      check: (l) => {
        const hcm = firstFilter(l.filterChains[0]);
        assert.equal(hcm['@type'], 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager');
        assert.equal(hcm.routeConfig.virtualHosts[0].routes[0].route.cluster, 'inbound|9080||');
      },
    },
    {
      name: 'given an HTTP service port should serve 0.0.0.0_<port> with an HCM reading RDS <port> (mesh.alpn first: PILOT_ENABLE_ALPN_FILTER defaults on)',
      listener: '0.0.0.0_9080',
      check: (l) => {
        assert.deepEqual(l.bindToPort, { value: false });
        const hcm = firstFilter(l.filterChains[0]);
        assert.equal(hcm.rds.routeConfigName, '9080');
        assert.deepEqual(hcm.httpFilters.map((f: any) => f.name), ['mesh.alpn', 'envoy.filters.http.fault', 'envoy.filters.http.cors', 'envoy.filters.http.router']);
      },
    },
    {
      name: 'given a TCP service port with a VIP should serve <vip>_<port> with tcp_proxy to its cluster',
      listener: '10.96.0.30_5432',
      check: (l) => {
        assert.deepEqual(l.address.socketAddress, { address: '10.96.0.30', portValue: 5432 });
        const tcp = firstFilter(l.filterChains[0]);
        assert.equal(tcp['@type'], 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy');
        assert.equal(tcp.cluster, 'outbound|5432||db.data.svc.cluster.local');
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const all = listeners(c.yaml, c.mesh);
      const l = all.get(c.listener);
      assert.ok(l, `listener ${c.listener} among ${[...all.keys()].join(', ')}`);
      c.check(l);
    });
  }

  it('given a TLS service without a VIP (DNS) should serve 0.0.0.0_<port> routing its host by SNI with tls_inspector', () => {
    const all = listeners();
    assert.deepEqual([...all.keys()], ['0.0.0.0_443', '0.0.0.0_9080', '10.96.0.30_5432', 'virtualInbound', 'virtualOutbound']);
    const l = all.get('0.0.0.0_443');
    assert.deepEqual(l.listenerFilters.map((f: any) => f.name), ['envoy.filters.listener.tls_inspector']);
    assert.deepEqual(l.filterChains.map((c: any) => [c.filterChainMatch.serverNames, firstFilter(c).cluster]), [[['api.example.com'], 'outbound|443||api.example.com']]);
  });

  const fallthrough: { name: string; mode: 'ALLOW_ANY' | 'REGISTRY_ONLY'; req: Parameters<typeof simulateRequest>[1]; want: string }[] = [
    { name: 'given raw TCP to an unknown address on an HTTP port and ALLOW_ANY should pass it through (as istiod)', mode: 'ALLOW_ANY', req: { protocol: 'tcp', address: '203.0.113.9', port: 9080 }, want: 'PassthroughCluster' },
    { name: 'given raw TCP to an unknown address on an HTTP port and REGISTRY_ONLY should black-hole it', mode: 'REGISTRY_ONLY', req: { protocol: 'tcp', address: '203.0.113.9', port: 9080 }, want: 'BlackHoleCluster' },
    { name: 'given TLS to an unknown address on an HTTP port should pass it through', mode: 'ALLOW_ANY', req: { protocol: 'tls', address: '203.0.113.9', port: 9080, sni: 'x.example.com' }, want: 'PassthroughCluster' },
    { name: 'given an unknown SNI on a TLS port and REGISTRY_ONLY should black-hole it', mode: 'REGISTRY_ONLY', req: { protocol: 'tls', address: '203.0.113.9', port: 443, sni: 'x.example.com' }, want: 'BlackHoleCluster' },
    { name: 'given plain HTTP on an HTTP port should still reach the HTTP chain', mode: 'ALLOW_ANY', req: { address: '10.96.0.10', port: 9080, host: 'reviews:9080', path: '/' }, want: 'outbound|9080|v1|reviews.default.svc.cluster.local' },
  ];
  for (const c of fallthrough) {
    it(c.name, () => {
      const { proxy, snap } = sidecarAt(sidecarModel(SIDECAR_MESH, { outboundTrafficPolicy: { mode: c.mode } }));
      const walk = simulateRequest(allSidecarResources(proxy, snap), c.req);
      assert.equal(walk.outcome, 'routed');
      assert.equal(walk.clusters?.[0]?.name, c.want);
    });
  }

  it('given a headless TCP service (resolution NONE) and REGISTRY_ONLY should still reach it through 0.0.0.0_<port> (as istiod)', () => {
    const yaml = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: headless, namespace: default }
spec:
  hosts: [headless.default.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 7071, name: tcp, protocol: TCP }]
  resolution: NONE
`;
    const { proxy, snap } = sidecarAt(sidecarModel(yaml, { outboundTrafficPolicy: { mode: 'REGISTRY_ONLY' } }));
    const walk = simulateRequest(allSidecarResources(proxy, snap), { protocol: 'tcp', address: '10.50.0.9', port: 7071 });
    assert.deepEqual([walk.listener, walk.clusters?.[0]?.name, walk.clusters?.[0]?.endpoints], ['0.0.0.0_7071', 'outbound|7071||headless.default.svc.cluster.local', ['10.50.0.9:7071']]);
  });
});
