/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { encode } from '../../protos/codec.js';
import { validate } from '../../protos/validate.js';
import { simulateRequest } from '../../simulator/request-simulator.js';
import { checkConsistency } from './consistency-checker.js';
import { buildSidecarListeners } from './listener-builder.js';
import { internalAddressConfig, parseCidr, type SidecarListenerOptions } from './listener-options.js';
import { ENVOY } from './sidecar-names.js';
import { allSidecarResources, HEADLESS_SERVICES, LEGACY_SNIFFED_SERVICE, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';
import { testModel } from '../testing/model-fixtures.js';
import { configEvent, configsFromYaml } from '../testing/model-fixtures.js';
import type { MeshNetworks, ProxyNode } from '../../../core/index.js';

const MESH = `${SIDECAR_MESH}\n---\n${LEGACY_SNIFFED_SERVICE}`;
const NETWORKS: MeshNetworks = {
  networks: {
    west: { endpoints: [{ fromCidr: '192.168.0.0/16' }, { fromRegistry: 'Kubernetes' }, { fromCidr: 'not-a-cidr' }], gateways: [] },
    east: { endpoints: [{ fromCidr: '10.0.0.0/8' }, { fromCidr: '2001:db8::/32' }, { fromCidr: '10.0.0.0/12' }], gateways: [] },
  },
};

function listenersOf(listener: SidecarListenerOptions | undefined, node: Partial<ProxyNode> = {}, yaml = MESH, networks?: MeshNetworks): Map<string, any> {
  const model = testModel(networks ? { networks } : {});
  model.apply(configsFromYaml(yaml).map((c) => configEvent(c)));
  model.rebuild();
  const { proxy, snap } = sidecarAt(model, sidecarNode(node));
  return new Map(buildSidecarListeners(snap.pushContext, proxy, snap.endpoints, undefined, listener ? { listener } : {}).map((l) => [l['name'] as string, l]));
}

/** The HCM of a listener's chain named `chain` (default: the first chain with an HCM). */
function hcmOf(l: any, chain?: string): any {
  const chains: any[] = chain ? l.filterChains.filter((c: any) => c.name === chain) : l.filterChains;
  for (const c of chains) for (const f of c.filters) if (f.name === 'envoy.filters.network.http_connection_manager') return f.typedConfig;
  throw new Error(`no HCM on ${l.name}${chain ? ` chain ${chain}` : ''}`);
}

const OUTBOUND_HTTP = '0.0.0.0_9080';
const SNIFFED = '10.96.0.70_7000';

describe('sidecar listener options (issue 13, LDS)', () => {
  describe('PILOT_SIDECAR_USE_REMOTE_ADDRESS', () => {
    for (const c of [
      { value: undefined, want: false },
      { value: true, want: true },
    ]) {
      it(`given ${String(c.value ?? 'unset')} should set use_remote_address ${c.want} on outbound HCMs and false on inbound ones`, () => {
        const ls = listenersOf(c.value === undefined ? undefined : { useRemoteAddress: c.value });
        assert.deepEqual(hcmOf(ls.get(OUTBOUND_HTTP)).useRemoteAddress, { value: c.want });
        assert.deepEqual(hcmOf(ls.get(SNIFFED), `${SNIFFED}-http`).useRemoteAddress, { value: c.want });
        assert.deepEqual(hcmOf(ls.get('virtualInbound')).useRemoteAddress, { value: false });
      });
    }
    it('given it with mesh networks should also set the internal addresses (as istiod: Envoy trusts no address by default)', () => {
      const ls = listenersOf({ useRemoteAddress: true }, {}, MESH, NETWORKS);
      assert.equal(hcmOf(ls.get(OUTBOUND_HTTP)).internalAddressConfig.cidrRanges.length, 4);
      assert.equal(hcmOf(ls.get('virtualInbound')).internalAddressConfig, undefined, 'inbound: neither option applies');
    });
  });

  describe('PILOT_HTTP10 and the proxy metadata HTTP10', () => {
    const cases = [
      { name: 'given neither should not accept HTTP/1.0 and sniff only http/1.1 and h2c (istiod default)', opts: undefined, md: {}, accept: false, alpn: ['http/1.1', 'h2c'] },
      { name: 'given PILOT_HTTP10 should accept HTTP/1.0 on every HCM and sniff http/1.0 too', opts: { http10: true }, md: {}, accept: true, alpn: ['http/1.0', 'http/1.1', 'h2c'] },
      { name: 'given only the proxy metadata HTTP10=1 should accept HTTP/1.0 on its HCMs but sniff as without', opts: undefined, md: { HTTP10: '1' }, accept: true, alpn: ['http/1.1', 'h2c'] },
      { name: 'given HTTP10=0 in the metadata should not accept HTTP/1.0', opts: undefined, md: { HTTP10: '0' }, accept: false, alpn: ['http/1.1', 'h2c'] },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const ls = listenersOf(c.opts, { metadata: { LABELS: { app: 'productpage' }, NAMESPACE: 'default', ...c.md } });
        const want = c.accept ? { acceptHttp_10: true } : undefined;
        assert.deepEqual(hcmOf(ls.get(OUTBOUND_HTTP)).httpProtocolOptions, want);
        assert.deepEqual(hcmOf(ls.get(SNIFFED), `${SNIFFED}-http`).httpProtocolOptions, want);
        assert.deepEqual(hcmOf(ls.get('virtualInbound')).httpProtocolOptions, want);
        assert.deepEqual(ls.get(OUTBOUND_HTTP).filterChains[0].filterChainMatch.applicationProtocols, c.alpn);
        assert.deepEqual(ls.get(SNIFFED).filterChains[0].filterChainMatch.applicationProtocols, c.alpn);
      });
    }
    it('given PILOT_HTTP10 unset should send an HTTP/1.0 request on a sniffed port through the TCP chain, and with it through the HCM', () => {
      for (const [opts, chain] of [
        [undefined, `${SNIFFED}-tcp`],
        [{ http10: true }, `${SNIFFED}-http`],
      ] as const) {
        const model = sidecarModel(MESH);
        const { proxy, snap } = sidecarAt(model);
        const config = allSidecarResources(proxy, snap, opts ? { listener: opts } : {});
        const walk = simulateRequest(config, { address: '10.96.0.70', port: 7000, alpn: ['http/1.0'], host: 'legacy', path: '/' });
        assert.equal(walk.filterChain, chain);
      }
    });
  });

  describe('ENABLE_HCM_INTERNAL_NETWORKS', () => {
    it('given it unset should set no internal_address_config', () => {
      const ls = listenersOf(undefined, {}, MESH, NETWORKS);
      assert.equal(hcmOf(ls.get(OUTBOUND_HTTP)).internalAddressConfig, undefined);
    });
    it("given it should set the mesh networks' fromCidr ranges, sorted, on outbound and inbound HCMs", () => {
      const ls = listenersOf({ hcmInternalNetworks: true }, {}, MESH, NETWORKS);
      const want = [
        { addressPrefix: '10.0.0.0', prefixLen: { value: 8 } },
        { addressPrefix: '10.0.0.0', prefixLen: { value: 12 } },
        { addressPrefix: '192.168.0.0', prefixLen: { value: 16 } },
        { addressPrefix: '2001:db8::', prefixLen: { value: 32 } },
      ];
      assert.deepEqual(hcmOf(ls.get(OUTBOUND_HTTP)).internalAddressConfig, { cidrRanges: want });
      assert.deepEqual(hcmOf(ls.get('virtualInbound')).internalAddressConfig, { cidrRanges: want });
    });
    it('given no fromCidr endpoint should set none', () => {
      assert.equal(internalAddressConfig({ networks: { n: { endpoints: [{ fromRegistry: 'Kubernetes' }], gateways: [] } } }), undefined);
    });
    const cidrs = [
      { in: '10.1.2.3', want: { addressPrefix: '10.1.2.3', prefixLen: { value: 32 } } },
      { in: '2001:DB8:0:0::1/64', want: { addressPrefix: '2001:db8::1', prefixLen: { value: 64 } } },
      { in: '192.168/16', want: undefined },
      { in: '10.0.0.0/33', want: undefined },
      { in: '', want: undefined },
    ];
    for (const c of cidrs) {
      it(`given fromCidr ${JSON.stringify(c.in)} should read ${c.want ? `${c.want.addressPrefix}/${c.want.prefixLen.value}` : 'nothing (as istiod, skipped)'}`, () => {
        const got = parseCidr(c.in);
        assert.deepEqual(got ? { addressPrefix: got.addressPrefix, prefixLen: got.prefixLen } : undefined, c.want);
      });
    }
  });

  describe('PILOT_ENABLE_ALPN_FILTER', () => {
    for (const c of [
      { value: undefined, want: true },
      { value: false, want: false },
    ]) {
      it(`given ${String(c.value ?? 'unset (default true)')} should ${c.want ? '' : 'not '}put mesh.alpn before fault on outbound HCMs, never on inbound ones`, () => {
        const ls = listenersOf(c.value === undefined ? undefined : { alpnFilter: c.value });
        for (const [name, chain] of [
          [OUTBOUND_HTTP, undefined],
          [SNIFFED, `${SNIFFED}-http`],
        ] as const) {
          const filters = hcmOf(ls.get(name), chain).httpFilters;
          assert.deepEqual(filters[0].name === 'mesh.alpn', c.want, name);
          if (c.want) {
            assert.equal(filters[0].typedConfig['@type'], 'type.googleapis.com/mesh.envoy.config.filter.http.alpn.v2alpha1.FilterConfig');
            assert.deepEqual(
              filters[0].typedConfig.alpnOverride.map((a: any) => [a.upstreamProtocol, a.alpnOverride]),
              [
                ['HTTP10', ['mesh-http/1.0', 'mesh']],
                ['HTTP11', ['mesh-http/1.1', 'mesh']],
                ['HTTP2', ['mesh-h2', 'mesh']],
              ],
            );
          }
        }
        assert.ok(!hcmOf(ls.get('virtualInbound')).httpFilters.some((f: any) => f.name === 'mesh.alpn'));
      });
    }
  });

  describe('MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS', () => {
    const v6 = { id: 'sidecar~fd00::1~productpage-1.default~default.svc.cluster.local', ipAddresses: ['fd00::1'] };
    const cases = [
      { name: 'given it unset and an IPv6-only proxy should bind virtualOutbound on :: only (istiod actualWildcards), with no additional address', opts: undefined, node: v6, address: '::', extra: undefined },
      { name: 'given it and an IPv6-only proxy should bind :: and 0.0.0.0 as an additional address', opts: { ipv4OutboundForIpv6: true }, node: v6, address: '::', extra: [{ address: { socketAddress: { address: '0.0.0.0', portValue: 15001 } } }] },
      { name: 'given it and an IPv4 proxy should change nothing', opts: { ipv4OutboundForIpv6: true }, node: {}, address: '0.0.0.0', extra: undefined },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const vo = listenersOf(c.opts, c.node).get('virtualOutbound');
        assert.deepEqual(vo.address.socketAddress, { address: c.address, portValue: 15001 });
        assert.deepEqual(vo.additionalAddresses, c.extra);
      });
    }
  });

  describe('PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS', () => {
    const YAML = `${SIDECAR_MESH}\n---\n${HEADLESS_SERVICES}`;
    const cases = [
      { name: 'given it unset (default true) should send a listener per pod of the headless orchestrator Service, as istiod', opts: undefined, want: ['10.1.0.5_9042', '10.1.0.6_9042'], not: ['0.0.0.0_9042'] },
      { name: 'given false should send 0.0.0.0_<port> for the headless Service', opts: { headlessPodListeners: false }, want: ['0.0.0.0_9042'], not: ['10.1.0.5_9042'] },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const ls = listenersOf(c.opts, {}, YAML);
        for (const n of c.want) assert.ok(ls.has(n), `${n} in ${[...ls.keys()].join(', ')}`);
        for (const n of c.not) assert.ok(!ls.has(n), `${n} absent`);
        // NOTE: a ServiceEntry with resolution NONE, no selector and no endpoints keeps its wildcard listener.
        assert.ok(ls.has('0.0.0.0_7072'));
      });
    }
    it("given the proxy is itself a pod of the headless Service should not send its own pod's listener", () => {
      const ls = listenersOf(undefined, { id: 'sidecar~10.1.0.5~cassandra-0.default~default.svc.cluster.local', ipAddresses: ['10.1.0.5'], metadata: { LABELS: { app: 'cassandra' }, NAMESPACE: 'default' } }, YAML);
      assert.ok(!ls.has('10.1.0.5_9042'));
      assert.ok(ls.has('10.1.0.6_9042'));
    });
    it('given a headless orchestrator Service with no pods should send no listener for its port', () => {
      const none = `${SIDECAR_MESH}\n---\n${HEADLESS_SERVICES.split('---\n')[0]!}`;
      const ls = listenersOf(undefined, {}, none);
      assert.deepEqual([...ls.keys()].filter((n) => n.endsWith('_9042')), []);
    });
    const TLS_HEADLESS = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: "orch:vault", namespace: default }
spec:
  hosts: [vault.default.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 8200, name: tls, protocol: TLS }]
  resolution: NONE
  workloadSelector: { labels: { app: vault } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: "orch:vault-0", namespace: default }
spec: { address: 10.2.0.5, labels: { app: vault } }
`;
    const VAULT = 'outbound|8200||vault.default.svc.cluster.local';
    it('given a headless TLS port should send a pod listener whose one chain takes any SNI to the service (as istiod: the pod is the destination)', () => {
      const { proxy, snap } = sidecarAt(sidecarModel(TLS_HEADLESS));
      const config = allSidecarResources(proxy, snap);
      const l: any = config.listeners.find((x) => x['name'] === '10.2.0.5_8200');
      assert.ok(l, config.listeners.map((x) => x['name']).join(', '));
      assert.deepEqual([l.filterChains.length, l.filterChains[0].filterChainMatch, l.listenerFilters], [1, undefined, undefined]);
      const walk = simulateRequest(config, { protocol: 'tls', address: '10.2.0.5', port: 8200, sni: 'anything.example' });
      assert.deepEqual([walk.listener, walk.outcome, walk.clusters?.map((x) => x.name)], ['10.2.0.5_8200', 'routed', [VAULT]]);
    });
    it('given a headless TLS port with a tls route should send the routed SNI to its destination and any other SNI to the outbound traffic policy', () => {
      const vs = `${TLS_HEADLESS}---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: vault, namespace: default }
spec:
  hosts: [vault.default.svc.cluster.local]
  tls: [{ match: [{ port: 8200, sniHosts: [vault.default.svc.cluster.local] }], route: [{ destination: { host: reviews.default.svc.cluster.local, port: { number: 9080 } } }] }]
`;
      const { proxy, snap } = sidecarAt(sidecarModel(vs));
      const config = allSidecarResources(proxy, snap);
      const routed = simulateRequest(config, { protocol: 'tls', address: '10.2.0.5', port: 8200, sni: 'vault.default.svc.cluster.local' });
      assert.deepEqual([routed.listener, routed.clusters?.map((x) => x.name)], ['10.2.0.5_8200', ['outbound|9080||reviews.default.svc.cluster.local']]);
      const other = simulateRequest(config, { protocol: 'tls', address: '10.2.0.5', port: 8200, sni: 'other.example' });
      assert.deepEqual([other.listener, other.filterChain, other.clusters?.map((x) => x.name)], ['10.2.0.5_8200', 'PassthroughFilterChain', ['PassthroughCluster']]);
      assert.deepEqual(checkConsistency(config), []);
    });
    it('given a connection to a pod should route it through its own listener to the headless cluster', () => {
      const { proxy, snap } = sidecarAt(sidecarModel(YAML));
      const config = allSidecarResources(proxy, snap);
      assert.deepEqual(checkConsistency(config), []);
      const walk = simulateRequest(config, { protocol: 'tcp', address: '10.1.0.6', port: 9042 });
      assert.deepEqual([walk.listener, walk.outcome, walk.clusters?.map((x) => x.name)], ['10.1.0.6_9042', 'routed', ['outbound|9042||cassandra.default.svc.cluster.local']]);
    });
  });

  it('given every option on should build listeners that pass protoc-gen-validate and the consistency checks', function () {
    this.timeout(60_000);
    const all: SidecarListenerOptions = { useRemoteAddress: true, http10: true, hcmInternalNetworks: true, alpnFilter: true, ipv4OutboundForIpv6: true, headlessPodListeners: true };
    const model = testModel({ networks: NETWORKS });
    model.apply(configsFromYaml(`${MESH}\n---\n${HEADLESS_SERVICES}`).map((c) => configEvent(c)));
    model.rebuild();
    const { proxy, snap } = sidecarAt(model, sidecarNode({ ipAddresses: ['fd00::1'] }));
    const config = allSidecarResources(proxy, snap, { listener: all });
    assert.deepEqual(checkConsistency(config), []);
    for (const l of config.listeners) assert.deepEqual(validate(ENVOY.listener, encode(ENVOY.listener, l)), [], `listener ${String(l['name'])}`);
  });
});
