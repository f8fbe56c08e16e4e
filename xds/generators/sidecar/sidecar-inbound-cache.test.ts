import assert from 'node:assert/strict';
import { createMetrics, proxyFromNode, proxyRequestPush, withSnapshot, type MeshModel, type Proxy, type PushRequest } from '../../../core/index.js';
import { XdsCache } from '../../cache/xds-cache.js';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { TYPE_URL } from '../../server/contracts.js';
import { configEvent, configsFromYaml } from '../testing/model-fixtures.js';
import { conflictRecorderFrom } from './conflict-recorder.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { ENVOY, VIRTUAL_INBOUND } from './sidecar-names.js';
import { PP_GRPC_ON_9080, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

/** A second productpage pod: one workload, two proxies. */
const SECOND_POD = `
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: productpage-2, namespace: default }
spec: { address: 10.0.0.2, labels: { app: productpage, security.mesh.io/tlsMode: mesh }, serviceAccount: productpage }
`;

function proxyOf(ip: string, labels: Record<string, string> = { app: 'productpage' }): Proxy {
  return proxyFromNode(sidecarNode({ id: `sidecar~${ip}~p-${ip}.default~default.svc.cluster.local`, ipAddresses: [ip], podName: `p-${ip}`, metadata: { LABELS: labels, NAMESPACE: 'default' } }));
}

async function virtualInbound(gen: SidecarGenerator, p: Proxy, push: PushRequest): Promise<Uint8Array> {
  const r = await gen.generate(p, { typeUrl: TYPE_URL.listener, names: new Set(), wildcard: true }, push);
  const body = r.resources.find((x) => x.name === VIRTUAL_INBOUND)?.body;
  assert.ok(body, `${p.id} gets ${VIRTUAL_INBOUND}`);
  return body;
}

/** The names of a virtualInbound's filter chains. */
function chainNames(body: Uint8Array): string[] {
  return (decode(ENVOY.listener, body) as { filterChains: { name: string }[] }).filterChains.map((c) => c.name);
}

const inboundKeys = (cache: XdsCache): string[] => cache.keys().filter((k) => k.startsWith('slds-inbound|'));

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

function change(model: MeshModel, yaml: string, type: 'added' | 'updated'): PushRequest {
  const req = model.apply(configsFromYaml(yaml).map((c) => configEvent(c, type)));
  assert.ok(req, 'the change calls for a push');
  model.rebuild();
  return withSnapshot(req, model.snapshot);
}

describe('virtualInbound through the cache (sidecar-inbound-cache.ts)', function () {
  this.timeout(60_000);
  before(() => protoRoot());

  it('given two proxies of one workload should build and encode virtualInbound once: the second gets the first bytes, equal to a fresh build for each, and its own inbound conflict counted', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const conflicts = conflictRecorderFrom(metrics);
    const cache = new XdsCache({ maxSize: 10_000 });
    const cached = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, cache, conflicts });
    const plain = new SidecarGenerator({ sendUnhealthyEndpoints: false });
    const push = proxyRequestPush(sidecarModel(`${SIDECAR_MESH}\n---\n${SECOND_POD}\n---\n${PP_GRPC_ON_9080}`).snapshot);
    const [a, b] = [proxyOf('10.0.0.1'), proxyOf('10.0.0.2')];
    const gotA = await virtualInbound(cached, a, push);
    const gotB = await virtualInbound(cached, b, push);
    assert.equal(gotB, gotA, 'the second proxy is served the bytes the first built (the same buffer)');
    assert.equal(inboundKeys(cache).length, 1);
    assert.ok(same(gotA, await virtualInbound(plain, a, push)) && same(gotB, await virtualInbound(plain, b, push)), 'cached bytes equal a fresh build');
    assert.ok(chainNames(gotA).includes('inbound|9080||-mtls'));
    const text = await metrics.text();
    assert.equal(/^pilot_conflict_inbound_listener (\d+)$/m.exec(text)?.[1], '2', 'each proxy reports its own inbound conflict, on the hit too');
  });

  const cases: {
    name: string;
    base?: string;
    change?: { yaml: string; type: 'added' | 'updated' };
    labels?: Record<string, string>;
    /** Whether the change names a dependency of the first entry, which must then be cleared. */
    clears: boolean;
    check: (chains: string[]) => void;
  }[] = [
    {
      name: 'given a PeerAuthentication port-level mode should serve the port plaintext',
      base: `apiVersion: security.mesh.io/v1\nkind: PeerAuthentication\nmetadata: { name: pp, namespace: default }\nspec: { selector: { matchLabels: { app: productpage } }, mtls: { mode: STRICT } }\n`,
      change: { yaml: `apiVersion: security.mesh.io/v1\nkind: PeerAuthentication\nmetadata: { name: pp, namespace: default }\nspec: { selector: { matchLabels: { app: productpage } }, mtls: { mode: STRICT }, portLevelMtls: { "9080": { mode: DISABLE } } }\n`, type: 'updated' },
      clears: true,
      check: (chains) => assert.ok(chains.includes('inbound|9080||-plaintext') && !chains.includes('inbound|9080||-mtls'), chains.join(', ')),
    },
    {
      name: 'given a Sidecar ingress listener added should serve its port',
      base: `apiVersion: networking.mesh.io/v1\nkind: Sidecar\nmetadata: { name: pp, namespace: default }\nspec:\n  workloadSelector: { labels: { app: productpage } }\n  ingress: [{ port: { number: 9080, protocol: HTTP, name: http }, defaultEndpoint: "127.0.0.1:9080" }]\n`,
      change: {
        yaml: `apiVersion: networking.mesh.io/v1\nkind: Sidecar\nmetadata: { name: pp, namespace: default }\nspec:\n  workloadSelector: { labels: { app: productpage } }\n  ingress:\n  - { port: { number: 9080, protocol: HTTP, name: http }, defaultEndpoint: "127.0.0.1:9080" }\n  - { port: { number: 9090, protocol: TCP, name: tcp }, defaultEndpoint: "127.0.0.1:9090" }\n`,
        type: 'updated',
      },
      clears: true,
      check: (chains) => assert.ok(chains.includes('inbound|9090||-mtls'), chains.join(', ')),
    },
    {
      name: 'given a new service selecting the workload should serve its port',
      change: {
        yaml: `apiVersion: networking.mesh.io/v1\nkind: ServiceEntry\nmetadata: { name: admin, namespace: default }\nspec:\n  hosts: [admin.default.svc.cluster.local]\n  addresses: [10.96.0.25]\n  location: MESH_INTERNAL\n  ports: [{ number: 8081, name: tcp-admin, protocol: TCP }]\n  resolution: STATIC\n  workloadSelector: { labels: { app: productpage } }\n`,
        type: 'added',
      },
      clears: false,
      check: (chains) => assert.ok(chains.includes('inbound|8081||-mtls'), chains.join(', ')),
    },
    {
      name: "given the proxy's labels picked by a PERMISSIVE PeerAuthentication should serve plaintext too",
      base: `apiVersion: security.mesh.io/v1\nkind: PeerAuthentication\nmetadata: { name: canary, namespace: default }\nspec: { selector: { matchLabels: { track: canary } }, mtls: { mode: PERMISSIVE } }\n`,
      labels: { app: 'productpage', track: 'canary' },
      clears: false,
      check: (chains) => assert.ok(chains.includes('inbound|9080||-plaintext') && chains.includes('virtualInbound'), chains.join(', ')),
    },
  ];
  for (const c of cases) {
    it(`${c.name}, from the cache as from a fresh build`, async () => {
      const model = sidecarModel(`${SIDECAR_MESH}\n---\n${SECOND_POD}${c.base ? `\n---\n${c.base}` : ''}`);
      const cache = new XdsCache({ maxSize: 10_000 });
      const cached = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, cache });
      const first = proxyRequestPush(model.snapshot);
      const before = await virtualInbound(cached, proxyOf('10.0.0.2'), first);
      const [oldKey, ...more] = inboundKeys(cache);
      assert.ok(oldKey !== undefined && more.length === 0, 'one cached virtualInbound');
      let push = first;
      if (c.change) {
        push = change(model, c.change.yaml, c.change.type);
        cached.invalidate(push);
        assert.equal(cache.keys().includes(oldKey), !c.clears, c.clears ? 'the change clears the entry it shaped' : 'the entry stays');
      }
      const p = proxyOf('10.0.0.1', c.labels);
      const got = await virtualInbound(cached, p, push);
      const want = await virtualInbound(new SidecarGenerator({ sendUnhealthyEndpoints: false }), p, push);
      assert.ok(!same(want, before), 'the input change changes virtualInbound');
      assert.ok(same(got, want), 'the cache serves the new answer');
      c.check(chainNames(got));
    });
  }
});

async function inboundCluster(gen: SidecarGenerator, p: Proxy, push: PushRequest, name = 'inbound|9080||'): Promise<Uint8Array> {
  const r = await gen.generate(p, { typeUrl: TYPE_URL.cluster, names: new Set(), wildcard: true }, push);
  const body = r.resources.find((x) => x.name === name)?.body;
  assert.ok(body, `${p.id} gets ${name}`);
  return body;
}

const clusterKeys = (cache: XdsCache): string[] => cache.keys().filter((k) => k.startsWith('scds-inbound|'));

describe('inbound clusters through the cache (inboundClusterKey)', function () {
  this.timeout(60_000);
  before(() => protoRoot());
  const cdsCached = (cache: XdsCache): SidecarGenerator => new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true, cache });
  const fresh = (): SidecarGenerator => new SidecarGenerator({ sendUnhealthyEndpoints: false });

  it('given two proxies of one workload in two snapshots should serve the second the first bytes from the cache, equal to a fresh build', async () => {
    const model = sidecarModel(`${SIDECAR_MESH}\n---\n${SECOND_POD}`);
    const cache = new XdsCache({ maxSize: 10_000 });
    const gen = cdsCached(cache);
    const first = proxyRequestPush(model.snapshot);
    const a = await inboundCluster(gen, proxyOf('10.0.0.1'), first);
    const edit = change(model, `apiVersion: networking.mesh.io/v1\nkind: VirtualService\nmetadata: { name: marker, namespace: default }\nspec: { hosts: [reviews], http: [{ route: [{ destination: { host: reviews } }] }] }\n`, 'added');
    gen.invalidate(edit);
    const b = await inboundCluster(gen, proxyOf('10.0.0.2'), edit);
    assert.equal(b, a, 'the same buffer, across snapshots');
    assert.equal(clusterKeys(cache).length, 1);
    assert.ok(same(b, await inboundCluster(fresh(), proxyOf('10.0.0.2'), edit)));
  });

  it("given a Sidecar default endpoint on the proxy's address should serve each proxy its own, and a connection pool edit should clear the entries and serve the new pool", async () => {
    const sidecar = (max: number): string =>
      `apiVersion: networking.mesh.io/v1\nkind: Sidecar\nmetadata: { name: pp, namespace: default }\nspec:\n  workloadSelector: { labels: { app: productpage } }\n  inboundConnectionPool: { tcp: { maxConnections: ${max} } }\n  ingress: [{ port: { number: 9080, protocol: HTTP, name: http }, defaultEndpoint: "0.0.0.0:9080" }]\n`;
    const model = sidecarModel(`${SIDECAR_MESH}\n---\n${SECOND_POD}\n---\n${sidecar(5)}`);
    const cache = new XdsCache({ maxSize: 10_000 });
    const gen = cdsCached(cache);
    const push = proxyRequestPush(model.snapshot);
    type C = { loadAssignment: { endpoints: { lbEndpoints: { endpoint: { address: { socketAddress: { address: string } } } }[] }[] }; circuitBreakers: { thresholds: { maxConnections?: { value: number } }[] } };
    const view = (body: Uint8Array): [string | undefined, number | undefined] => {
      const c = decode(ENVOY.cluster, body) as C;
      return [c.loadAssignment.endpoints[0]?.lbEndpoints[0]?.endpoint.address.socketAddress.address, c.circuitBreakers.thresholds[0]?.maxConnections?.value];
    };
    const before: Uint8Array[] = [];
    for (const ip of ['10.0.0.1', '10.0.0.2']) {
      const got = await inboundCluster(gen, proxyOf(ip), push);
      assert.deepEqual(view(got), [ip, 5]);
      assert.ok(same(got, await inboundCluster(fresh(), proxyOf(ip), push)), `${ip}: as a fresh build`);
      before.push(got);
    }
    const old = clusterKeys(cache);
    assert.equal(old.length, 2, 'one entry per address');
    const edit = change(model, sidecar(6), 'updated');
    gen.invalidate(edit);
    assert.deepEqual(clusterKeys(cache).filter((k) => old.includes(k)), [], 'the Sidecar edit clears the entries it shaped');
    const got = await inboundCluster(gen, proxyOf('10.0.0.1'), edit);
    assert.deepEqual(view(got), ['10.0.0.1', 6]);
    assert.ok(same(got, await inboundCluster(fresh(), proxyOf('10.0.0.1'), edit)) && !same(got, before[0]!));
  });
});
