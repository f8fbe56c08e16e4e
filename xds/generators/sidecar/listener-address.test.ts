/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { proxyFromNode, proxyRequestPush, type Proxy } from '../../../core/index.js';
import { XdsCache } from '../../cache/xds-cache.js';
import { decode, encode } from '../../protos/codec.js';
import { validate } from '../../protos/validate.js';
import { TYPE_URL } from '../../server/contracts.js';
import { simulateRequest } from '../../simulator/request-simulator.js';
import { buildSidecarClusters } from './cluster-builder.js';
import { checkConsistency } from './consistency-checker.js';
import { ipMode } from './listener-address.js';
import { buildSidecarListeners } from './listener-builder.js';
import type { SidecarListenerOptions } from './listener-options.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { ENVOY } from './sidecar-names.js';
import { allSidecarResources, HEADLESS_SERVICES, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

/** An IPv6 service (VIP fd00:10:96::20) whose endpoint is the IPv6 sidecar fd00::1, a Sidecar ingress default endpoint, and the headless services. */
const YAML = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: web6, namespace: default }
spec:
  hosts: [web6.default.svc.cluster.local]
  addresses: ["fd00:10:96::20"]
  location: MESH_INTERNAL
  ports: [{ number: 8080, name: http, protocol: HTTP }]
  resolution: STATIC
  workloadSelector: { labels: { app: web6 } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: web6, namespace: default }
spec: { address: "fd00::1", labels: { app: web6, security.mesh.io/tlsMode: mesh }, serviceAccount: web6 }
---
${HEADLESS_SERVICES}`;

const V4 = ['10.0.0.1'];
const V6 = ['fd00::1'];
const DUAL = ['10.0.0.1', 'fd00::1'];

function proxyWith(ips: readonly string[]): Proxy {
  return proxyFromNode(sidecarNode({ id: `sidecar~${ips[0]!}~productpage-1.default~default.svc.cluster.local`, ipAddresses: [...ips] }));
}

function built(ips: readonly string[], listener: SidecarListenerOptions = {}, yaml = YAML): { listeners: Map<string, any>; clusters: Map<string, any> } {
  const snap = proxyRequestPush(sidecarModel(yaml).snapshot).snapshot!;
  const proxy = proxyWith(ips);
  const ls = buildSidecarListeners(snap.pushContext, proxy, snap.endpoints, undefined, { listener });
  const cs = buildSidecarClusters(snap.pushContext, proxy, { endpoints: snap.endpoints, listener });
  return { listeners: new Map(ls.map((l) => [l['name'] as string, l])), clusters: new Map(cs.map((c) => [c['name'] as string, c])) };
}

const bound = (l: any): string[] => [l.address.socketAddress.address, ...(l.additionalAddresses ?? []).map((a: any) => a.address.socketAddress.address)];
const binds = (c: any): string[] => [c.upstreamBindConfig.sourceAddress.address, ...(c.upstreamBindConfig.extraSourceAddresses ?? []).map((a: any) => a.address.address)];

describe('sidecar addresses by the proxy IP families (istiod listener_address.go)', () => {
  it('given INSTANCE_IPS should tell IPv4 (or none), IPv6 and dual-stack apart as istiod DiscoverIPMode', () => {
    assert.deepEqual([V4, V6, DUAL, [], ['::1', '127.0.0.1']].map((ipAddresses) => ipMode({ ipAddresses })), ['IPv4', 'IPv6', 'Dual', 'IPv4', 'Dual']);
  });

  const cases: {
    name: string;
    ips: readonly string[];
    opts?: SidecarListenerOptions;
    virtualOutbound: string[];
    virtualInbound: string[];
    http: [string, string[]];
    noVip: [string, string[]];
    inboundBind: string[];
    passthroughBind: string[];
    dns: string;
    statPrefix: string;
  }[] = [
    {
      name: 'given an IPv4 proxy should bind 0.0.0.0 and 127.0.0.6 only and resolve DNS as V4_ONLY (as before)',
      ips: V4,
      virtualOutbound: ['0.0.0.0'],
      virtualInbound: ['0.0.0.0'],
      http: ['0.0.0.0_9080', ['0.0.0.0']],
      noVip: ['0.0.0.0_7072', ['0.0.0.0']],
      inboundBind: ['127.0.0.6'],
      passthroughBind: ['127.0.0.6'],
      dns: 'V4_ONLY',
      statPrefix: 'inbound_0.0.0.0_9080',
    },
    {
      name: 'given an IPv6-only proxy should bind ::, name listeners ::_<port>, bind ::6 and resolve DNS as V6_ONLY',
      ips: V6,
      virtualOutbound: ['::'],
      virtualInbound: ['::'],
      http: ['::_9080', ['::']],
      noVip: ['::_7072', ['::']],
      inboundBind: ['::6'],
      passthroughBind: ['::6'],
      dns: 'V6_ONLY',
      statPrefix: 'inbound_::_8080',
    },
    {
      name: 'given an IPv6-only proxy and MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS should add 0.0.0.0 to virtualOutbound and resolve DNS as ALL',
      ips: V6,
      opts: { ipv4OutboundForIpv6: true },
      virtualOutbound: ['::', '0.0.0.0'],
      virtualInbound: ['::'],
      http: ['::_9080', ['::']],
      noVip: ['::_7072', ['::']],
      inboundBind: ['::6'],
      passthroughBind: ['::6'],
      dns: 'ALL',
      statPrefix: 'inbound_::_8080',
    },
    {
      name: 'given a dual-stack proxy without MESH_DUAL_STACK should bind the virtual listeners and inbound clusters on IPv4 only, HTTP and ServiceEntry listeners and InboundPassthroughCluster on both (as istiod)',
      ips: DUAL,
      virtualOutbound: ['0.0.0.0'],
      virtualInbound: ['0.0.0.0'],
      http: ['0.0.0.0_9080', ['0.0.0.0', '::']],
      noVip: ['0.0.0.0_7072', ['0.0.0.0', '::']],
      inboundBind: ['127.0.0.6'],
      passthroughBind: ['127.0.0.6', '::6'],
      dns: 'V4_ONLY',
      statPrefix: 'inbound_0.0.0.0_8080',
    },
    {
      name: 'given a dual-stack proxy and MESH_DUAL_STACK should add :: to the virtual listeners, ::6 to the inbound clusters and resolve DNS as ALL',
      ips: DUAL,
      opts: { dualStack: true },
      virtualOutbound: ['0.0.0.0', '::'],
      virtualInbound: ['0.0.0.0', '::'],
      http: ['0.0.0.0_9080', ['0.0.0.0', '::']],
      noVip: ['0.0.0.0_7072', ['0.0.0.0', '::']],
      inboundBind: ['127.0.0.6', '::6'],
      passthroughBind: ['127.0.0.6', '::6'],
      dns: 'ALL',
      statPrefix: 'inbound_0.0.0.0_8080',
    },
  ];
  for (const c of cases) {
    it(c.name, function () {
      this.timeout(60_000);
      const { listeners, clusters } = built(c.ips, c.opts);
      assert.deepEqual(bound(listeners.get('virtualOutbound')), c.virtualOutbound, 'virtualOutbound');
      const vi = listeners.get('virtualInbound');
      assert.deepEqual(bound(vi), c.virtualInbound, 'virtualInbound');
      assert.deepEqual(bound(listeners.get(c.http[0])), c.http[1], c.http[0]);
      assert.deepEqual(bound(listeners.get(c.noVip[0])), c.noVip[1], `${c.noVip[0]} (ServiceEntry without a VIP)`);
      // NOTE: an orchestrator Service without a VIP stays on 0.0.0.0 (its pod listeners here); VIP listeners keep the VIP.
      assert.ok(listeners.has('10.96.0.30_5432'));
      const hcm = vi.filterChains.flatMap((fc: any) => fc.filters).find((f: any) => f.name === 'envoy.filters.network.http_connection_manager');
      assert.equal(hcm.typedConfig.statPrefix, c.statPrefix);
      const inbound = [...clusters.keys()].filter((n) => n.startsWith('inbound|'));
      assert.ok(inbound.length > 0);
      for (const n of inbound) assert.deepEqual(binds(clusters.get(n)), c.inboundBind, n);
      assert.deepEqual(binds(clusters.get('InboundPassthroughCluster')), c.passthroughBind);
      assert.equal(clusters.get('outbound|443||api.example.com').dnsLookupFamily, c.dns);
      for (const l of listeners.values()) assert.deepEqual(validate(ENVOY.listener, encode(ENVOY.listener, l)), [], String(l.name));
      for (const cl of clusters.values()) assert.deepEqual(validate(ENVOY.cluster, encode(ENVOY.cluster, cl)), [], String(cl.name));
    });
  }

  it('given a Sidecar ingress default endpoint 127.0.0.1 should send an IPv6-only proxy to ::1 and [::1] an IPv4 proxy to 127.0.0.1 (istiod buildInboundClustersFromSidecar)', () => {
    const sidecar = (endpoint: string): string => `${YAML}
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: default, namespace: default }
spec:
  ingress: [{ port: { number: 9080, protocol: HTTP, name: http }, defaultEndpoint: "${endpoint}" }]
`;
    const endpoint = (ips: readonly string[], e: string): unknown => {
      const c = built(ips, {}, sidecar(e)).clusters.get('inbound|9080||');
      return [c.loadAssignment.endpoints[0].lbEndpoints[0].endpoint.address.socketAddress.address, c.upstreamBindConfig];
    };
    assert.deepEqual(endpoint(V6, '127.0.0.1:8080'), ['::1', undefined]);
    assert.deepEqual(endpoint(V4, '[::1]:8080'), ['127.0.0.1', undefined]);
    assert.deepEqual(endpoint(DUAL, '127.0.0.1:8080'), ['127.0.0.1', undefined]);
    assert.deepEqual(endpoint(DUAL, '[::1]:8080'), ['::1', undefined]);
    assert.deepEqual(endpoint(V6, '[::]:8080'), ['fd00::1', { sourceAddress: { address: '::6', portValue: 0 } }]);
  });

  it('given an IPv6-only proxy should route requests through its :: listeners in the simulator and send a configuration that is consistent', () => {
    const snap = proxyRequestPush(sidecarModel(YAML).snapshot).snapshot!;
    const cfg = allSidecarResources(proxyWith(V6), snap);
    assert.deepEqual(checkConsistency(cfg), []);
    const http = simulateRequest(cfg, { address: 'fd00:10:96::20', port: 8080, host: 'web6:8080' });
    assert.deepEqual([http.outcome, http.listener, http.clusters?.map((c) => c.name)], ['routed', '::_8080', ['outbound|8080||web6.default.svc.cluster.local']]);
    const byVip = simulateRequest(cfg, { address: 'fd00:10:96::20', port: 8080 });
    assert.deepEqual([byVip.outcome, byVip.virtualHost], ['routed', 'web6.default.svc.cluster.local:8080']);
    const unknown = simulateRequest(cfg, { protocol: 'tcp', address: '2001:db8::1', port: 8443 });
    assert.deepEqual([unknown.outcome, unknown.listener, unknown.clusters], ['routed', 'virtualOutbound', [{ name: 'PassthroughCluster', weight: 100, endpoints: ['[2001:db8::1]:8443'] }]]);
    const inbound = simulateRequest(cfg, { direction: 'inbound', address: 'fd00::1', port: 8080, tls: true, alpn: ['mesh-peer-exchange', 'mesh'] });
    assert.deepEqual([inbound.outcome, inbound.clusters?.[0]?.name, inbound.clusters?.[0]?.endpoints], ['routed', 'inbound|8080||', ['[fd00::1]:8080']]);
  });

  it('given the cache, an IPv4 and an IPv6-only proxy of one scope should each get their own listeners and clusters (the IP mode is in the keys)', async () => {
    const model = sidecarModel(YAML);
    const push = proxyRequestPush(model.snapshot);
    const gen = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true, enableRdsCache: true, cache: new XdsCache({ maxSize: 100_000 }) });
    const names = async (ips: readonly string[]): Promise<{ listeners: string[]; passthrough: unknown; dns: unknown }> => {
      const p = proxyWith(ips);
      const lds = await gen.generate(p, { typeUrl: TYPE_URL.listener, names: new Set(), wildcard: true }, push);
      const cds = await gen.generate(p, { typeUrl: TYPE_URL.cluster, names: new Set(), wildcard: true }, push);
      const clusters = new Map(cds.resources.map((r) => [r.name, decode(ENVOY.cluster, r.body) as any]));
      return {
        listeners: lds.resources.map((r) => r.name).filter((n) => n.endsWith('_9080')),
        passthrough: clusters.get('InboundPassthroughCluster').upstreamBindConfig.sourceAddress.address,
        dns: clusters.get('outbound|443||api.example.com').dnsLookupFamily,
      };
    };
    assert.deepEqual(await names(V4), { listeners: ['0.0.0.0_9080'], passthrough: '127.0.0.6', dns: 'V4_ONLY' });
    assert.deepEqual(await names(V6), { listeners: ['::_9080'], passthrough: '::6', dns: 'V6_ONLY' });
    assert.deepEqual(await names(V4), { listeners: ['0.0.0.0_9080'], passthrough: '127.0.0.6', dns: 'V4_ONLY' });
  });
});
