import assert from 'node:assert/strict';
import { proxyFromNode, proxyRequestPush, withSnapshot, type MeshModel, type Proxy, type PushRequest } from '../../../core/index.js';
import { XdsCache } from '../../cache/xds-cache.js';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { TYPE_URL } from '../../server/contracts.js';
import { AdsClient } from '../../testing/ads-client.js';
import { configEvent, configsFromYaml, testModel } from '../testing/model-fixtures.js';
import { MeshHarness } from '../testing/mesh-harness.js';
import type { SidecarListenerOptions } from './listener-options.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { sidecarListenerKey } from './sidecar-listener-cache.js';
import { sidecarScope } from './sidecar-scope.js';
import { ENVOY } from './sidecar-names.js';
import { HEADLESS_SERVICES, LEGACY_SNIFFED_SERVICE, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const MESH = `${SIDECAR_MESH}\n---\n${LEGACY_SNIFFED_SERVICE}\n---\n${HEADLESS_SERVICES}`;
const NEW_POD = `apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: "orch:cassandra-2", namespace: default }
spec: { address: 10.1.0.7, labels: { app: cassandra } }
`;

function proxyOf(ip: string, labels: Record<string, string>, metadata: Record<string, unknown> = {}, ns = 'default'): Proxy {
  return proxyFromNode(sidecarNode({ id: `sidecar~${ip}~p-${ip}.${ns}~${ns}.svc.cluster.local`, ipAddresses: [ip], podName: `p-${ip}`, namespace: ns, metadata: { LABELS: labels, NAMESPACE: ns, ...metadata } }));
}

async function lds(gen: SidecarGenerator, p: Proxy, push: PushRequest): Promise<Map<string, Uint8Array>> {
  const r = await gen.generate(p, { typeUrl: TYPE_URL.listener, names: new Set(), wildcard: true }, push);
  return new Map(r.resources.map((x) => [x.name, x.body]));
}

function model(headless: boolean): MeshModel {
  const m = testModel({ headlessEndpointsShapeListeners: headless });
  m.apply(configsFromYaml(MESH).map((c) => configEvent(c)));
  m.rebuild();
  return m;
}

describe('sidecar outbound listeners through the cache, with the listener options', function () {
  this.timeout(120_000);
  before(() => protoRoot());

  const proxies = [
    proxyOf('10.0.0.1', { app: 'productpage' }),
    proxyOf('10.0.0.2', { app: 'productpage' }, { HTTP10: '1' }),
    proxyOf('10.1.0.5', { app: 'cassandra' }),
    proxyOf('10.0.0.3', { app: 'productpage' }),
  ];
  const optionSets: { name: string; listener?: SidecarListenerOptions }[] = [
    { name: 'the defaults' },
    { name: 'every option on', listener: { useRemoteAddress: true, http10: true, hcmInternalNetworks: true, alpnFilter: true, ipv4OutboundForIpv6: true, headlessPodListeners: true } },
    { name: 'ALPN filter and pod listeners off', listener: { alpnFilter: false, headlessPodListeners: false } },
  ];
  for (const o of optionSets) {
    it(`given ${o.name}, proxies sharing a scope (one with metadata HTTP10, one a headless pod) and a headless endpoint change should serve cached bytes equal to uncached bytes`, async () => {
      const m = model(o.listener?.headlessPodListeners !== false);
      const extra = o.listener ? { listener: o.listener } : {};
      const cached = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, cache: new XdsCache({ maxSize: 10_000 }), ...extra });
      const plain = new SidecarGenerator({ sendUnhealthyEndpoints: false, ...extra });
      const compare = async (push: PushRequest, label: string): Promise<Map<string, Map<string, Uint8Array>>> => {
        const out = new Map<string, Map<string, Uint8Array>>();
        for (const round of [1, 2]) {
          for (const p of proxies) {
            const want = await lds(plain, p, push);
            const got = await lds(cached, p, push);
            assert.deepEqual([...got.keys()], [...want.keys()], `${label} round ${round} ${p.id}: names`);
            for (const [k, body] of want) assert.ok(Buffer.from(got.get(k)!).equals(Buffer.from(body)), `${label} round ${round} ${p.id}: ${k}`);
            out.set(p.id, got);
          }
        }
        return out;
      };
      const first = await compare(proxyRequestPush(m.snapshot), 'initial');
      const pod = proxies[2]!.id;
      if (o.listener?.headlessPodListeners !== false) {
        assert.ok(!first.get(pod)!.has('10.1.0.5_9042') && first.get(pod)!.has('10.1.0.6_9042'), "the headless pod does not get its own pod's listener");
        assert.ok(first.get(proxies[0]!.id)!.has('10.1.0.5_9042'));
      }
      const hcmOf = (body: Uint8Array): Record<string, unknown> => {
        const l = decode(ENVOY.listener, body) as { filterChains: { filters: { typedConfig: Record<string, unknown> }[] }[] };
        return l.filterChains[0]!.filters[0]!.typedConfig;
      };
      const http10 = hcmOf(first.get(proxies[1]!.id)!.get('0.0.0.0_9080')!)['httpProtocolOptions'];
      assert.deepEqual(http10, { acceptHttp_10: true }, 'the proxy with metadata HTTP10 accepts HTTP/1.0 (not the shared bytes of the others)');
      if (!o.listener?.http10) assert.equal(hcmOf(first.get(proxies[0]!.id)!.get('0.0.0.0_9080')!)['httpProtocolOptions'], undefined);
      const req = m.apply(configsFromYaml(NEW_POD).map((c) => configEvent(c)));
      assert.ok(req);
      if (req.full) m.rebuild();
      const push = withSnapshot(req, m.snapshot);
      cached.invalidate(push);
      const after = await compare(push, 'new pod');
      assert.equal(after.get(proxies[0]!.id)!.has('10.1.0.7_9042'), o.listener?.headlessPodListeners !== false);
    });
  }
});

const TWO_NAMESPACES = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: db, namespace: data }
spec:
  hosts: [db.data.svc.cluster.local]
  addresses: [10.96.0.40]
  location: MESH_INTERNAL
  ports: [{ number: 5432, name: tcp, protocol: TCP }]
  resolution: STATIC
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: db-replica, namespace: data }
spec:
  hosts: [db-replica.data.svc.cluster.local]
  addresses: [10.96.0.41]
  location: MESH_INTERNAL
  ports: [{ number: 5432, name: tcp, protocol: TCP }]
  resolution: STATIC
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: web, namespace: data }
spec:
  hosts: [web.data.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 8080, name: http, protocol: HTTP }]
  resolution: STATIC
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: web, namespace: data }
spec:
  hosts: [web.data.svc.cluster.local]
  http: [{ route: [{ destination: { host: web.data.svc.cluster.local } }] }]
`;
/** Sends namespace a's connections to db to the replica: only sidecars in a get that tcp_proxy. */
const TCP_ROUTE_FOR_A = `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: db, namespace: data }
spec:
  hosts: [db.data.svc.cluster.local]
  tcp: [{ match: [{ sourceNamespace: a }], route: [{ destination: { host: db-replica.data.svc.cluster.local } }] }]
`;

describe('sidecar outbound listeners shared across namespaces', function () {
  this.timeout(60_000);
  before(() => protoRoot());

  const proxies = [proxyOf('10.2.0.1', { app: 'a' }, {}, 'a'), proxyOf('10.2.0.2', { app: 'b' }, {}, 'b')];
  const meshOf = (yaml: string): MeshModel => {
    const m = testModel();
    m.apply(configsFromYaml(yaml).map((c) => configEvent(c)));
    m.rebuild();
    return m;
  };
  const keysOf = (m: MeshModel): string[] => proxies.map((p) => sidecarListenerKey(m.snapshot.pushContext, p, sidecarScope(m.snapshot.pushContext, p)));
  /** Each proxy's LDS from a cached generator (namespace a first) against an uncached one; returns the cached tcp_proxy cluster of db. */
  const served = async (m: MeshModel): Promise<string[]> => {
    const cached = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, cache: new XdsCache({ maxSize: 10_000 }) });
    const plain = new SidecarGenerator({ sendUnhealthyEndpoints: false });
    const push = proxyRequestPush(m.snapshot);
    const clusters: string[] = [];
    for (const p of proxies) {
      const want = await lds(plain, p, push);
      const got = await lds(cached, p, push);
      assert.deepEqual([...got.keys()], [...want.keys()], `${p.id}: names`);
      for (const [k, body] of want) assert.ok(Buffer.from(got.get(k)!).equals(Buffer.from(body)), `${p.id}: ${k} cached as uncached`);
      const db = decode(ENVOY.listener, got.get('10.96.0.40_5432')!) as { filterChains: { filters: { typedConfig: { cluster?: string } }[] }[] };
      clusters.push(db.filterChains[0]!.filters[0]!.typedConfig.cluster ?? '');
    }
    return clusters;
  };

  it('given no VirtualService with a tcp or tls route should key the sidecars of both namespaces alike and serve them the same listeners', async () => {
    const m = meshOf(TWO_NAMESPACES);
    const [a, b] = keysOf(m);
    assert.equal(a, b, 'one outbound listener set for both namespaces');
    assert.ok(a!.startsWith('slds|*|'), a);
    assert.deepEqual(await served(m), ['outbound|5432||db.data.svc.cluster.local', 'outbound|5432||db.data.svc.cluster.local']);
  });

  it('given a tcp route matching one source namespace should key each namespace apart and serve each its own tcp_proxy', async () => {
    const m = meshOf(`${TWO_NAMESPACES}---\n${TCP_ROUTE_FOR_A}`);
    const [a, b] = keysOf(m);
    assert.notEqual(a, b);
    assert.deepEqual(await served(m), ['outbound|5432||db-replica.data.svc.cluster.local', 'outbound|5432||db.data.svc.cluster.local']);
  });
});

describe('a headless endpoint change over a real ADS stream (PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS)', function () {
  this.timeout(60_000);
  before(() => protoRoot());
  const cases = [
    { name: 'given it on (default) should push LDS with the new pod listener', listener: undefined, want: '10.1.0.7_9042' },
    { name: 'given it off should keep 0.0.0.0_<port> and push EDS only', listener: { headlessPodListeners: false }, want: undefined },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const h = await MeshHarness.start(c.listener ? { listener: c.listener } : {});
      const client = new AdsClient({ address: h.xdsAddress, node: { id: 'sidecar~10.0.0.1~productpage-1.default~default.svc.cluster.local', metadata: { NAMESPACE: 'default', LABELS: { app: 'productpage' } } }, autoAck: true });
      try {
        h.apply(MESH);
        client.subscribe(TYPE_URL.listener);
        const names = (): string[] => (client.latest(TYPE_URL.listener)?.resources ?? []).map((r) => r.name);
        const first = c.want ? '10.1.0.6_9042' : '0.0.0.0_9042';
        await client.waitFor(`LDS with ${first}`, () => (names().includes(first) ? true : undefined));
        const ldsCount = (): number => client.responses.filter((r) => r.typeUrl === TYPE_URL.listener).length;
        const pushesBefore = ldsCount();
        h.apply(NEW_POD);
        if (c.want) {
          await client.waitFor(`LDS with ${c.want}`, () => (names().includes(c.want) ? true : undefined));
        } else {
          // NOTE: no LDS push is due; a later VirtualService (which LDS follows) proves the stream is live and LDS has no pod listener.
          h.apply(`apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: marker, namespace: default }
spec: { hosts: [reviews], http: [{ route: [{ destination: { host: reviews } }] }] }
`);
          await client.waitFor('an LDS push after the VirtualService', () => (ldsCount() > pushesBefore ? true : undefined));
          assert.ok(!names().some((n) => n.startsWith('10.1.0.')), names().join(', '));
        }
      } finally {
        client.close();
        await h.close();
      }
    });
  }
});
