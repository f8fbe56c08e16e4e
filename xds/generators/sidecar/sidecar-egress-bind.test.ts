/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
/**
 * Sidecar egress listeners with a port, `bind` and `captureMode: NONE` (istiod's buildSidecarOutboundListeners
 * with listener bindings, GetEgressListenerForRDS): their own listeners at bind:port, then the catch-all's,
 * walked by the request simulator, uncached and through the cached generator.
 */
import assert from 'node:assert/strict';
import { proxyFromNode, proxyRequestPush } from '../../../core/index.js';
import { validate } from '../../protos/validate.js';
import { TYPE_URL } from '../../server/contracts.js';
import { simulateRequest, type SimulatedRequest } from '../../simulator/request-simulator.js';
import { checkConsistency } from './consistency-checker.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

/** productpage's Sidecar: reviews on 127.0.0.1:9080 (HTTP, NONE), db on 5432 (TCP, NONE, default bind), then the catch-all. */
const withEgress = (egress: string): string => `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: productpage-egress, namespace: default, generation: 7 }
spec:
  workloadSelector: { labels: { app: productpage } }
  egress:
${egress}`;

const BOUND = withEgress(`  - port: { number: 9080, protocol: HTTP, name: http-local }
    bind: 127.0.0.1
    captureMode: NONE
    hosts: [./reviews.default.svc.cluster.local]
  - port: { number: 5432, protocol: TCP, name: tcp-db }
    captureMode: NONE
    hosts: [data/db.data.svc.cluster.local]
  - hosts: [./*, data/*]
`);

const http = (address: string, port: number, host: string, more: Partial<SimulatedRequest> = {}): SimulatedRequest => ({ direction: 'outbound', protocol: 'http', address, port, host, path: '/', ...more });
const tcp = (address: string, port: number): SimulatedRequest => ({ direction: 'outbound', protocol: 'tcp', address, port });
const REVIEWS = 'reviews.default.svc.cluster.local';

function resources(yaml: string) {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml));
  return allSidecarResources(proxy, snap);
}

describe('Sidecar egress listeners with a port, bind and captureMode NONE', () => {
  const cfg = resources(BOUND);
  const byName = new Map(cfg.listeners.map((l) => [l['name'] as string, l as any]));

  it('given an HTTP egress port with bind and captureMode NONE should build <bind>_<port> binding its port, every connection to the HCM of route configuration <port>', () => {
    const l = byName.get('127.0.0.1_9080');
    assert.ok(l, [...byName.keys()].join(', '));
    assert.deepEqual(l.address, { socketAddress: { address: '127.0.0.1', portValue: 9080 } });
    assert.equal(l.bindToPort, undefined, 'binds the port');
    assert.equal(l.filterChains.length, 1);
    assert.equal(l.filterChains[0].filterChainMatch, undefined, 'no ALPN match on a specific bind (as istiod)');
    assert.equal(l.filterChains[0].filters[0].typedConfig.rds.routeConfigName, '9080');
    assert.equal(l.listenerFilters, undefined);
  });

  it('given a TCP egress port with captureMode NONE and no bind should bind 127.0.0.1:<port> to the service cluster', () => {
    const l = byName.get('127.0.0.1_5432');
    assert.ok(l, [...byName.keys()].join(', '));
    assert.equal(l.bindToPort, undefined);
    assert.equal(l.filterChains[0].filters.at(-1).typedConfig.cluster, 'outbound|5432||db.data.svc.cluster.local');
  });

  it("given the catch-all egress listener should still build the services' own listeners (not bound) beside the bound ones", () => {
    assert.deepEqual(byName.get('0.0.0.0_9080')?.bindToPort, { value: false });
    assert.deepEqual(byName.get('10.96.0.30_5432')?.bindToPort, { value: false });
    assert.ok(byName.has('virtualOutbound'));
  });

  const walks: { name: string; req: SimulatedRequest; want: Record<string, unknown> }[] = [
    {
      name: 'given HTTP to 127.0.0.1:9080 with the reviews Host should route through the bound listener by its VirtualService',
      req: http('127.0.0.1', 9080, 'reviews:9080', { headers: { 'end-user': 'jason' }, path: '/reviews/1' }),
      want: { outcome: 'routed', listener: '127.0.0.1_9080', routeConfig: '9080', clusters: [`outbound|9080|v2|${REVIEWS}`] },
    },
    {
      name: 'given TCP to 127.0.0.1:5432 should reach db through the bound listener',
      req: tcp('127.0.0.1', 5432),
      want: { outcome: 'routed', listener: '127.0.0.1_5432', routeConfig: undefined, clusters: ['outbound|5432||db.data.svc.cluster.local'] },
    },
    {
      name: 'given TCP to the db VIP should still take its VIP listener',
      req: tcp('10.96.0.30', 5432),
      want: { outcome: 'routed', listener: '10.96.0.30_5432', routeConfig: undefined, clusters: ['outbound|5432||db.data.svc.cluster.local'] },
    },
    {
      name: 'given HTTP to productpage on 9080 should find no virtual host: route configuration 9080 is the 9080 egress listener\'s (istiod\'s GetEgressListenerForRDS)',
      req: http('10.96.0.20', 9080, 'productpage:9080'),
      want: { outcome: 'routed', listener: '0.0.0.0_9080', routeConfig: '9080', clusters: ['PassthroughCluster'] },
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
    for (const n of ['127.0.0.1_9080', '127.0.0.1_5432']) assert.deepEqual(validate('envoy.config.listener.v3.Listener', byName.get(n)), [], n);
  });

  it('given only egress listeners with ports (no catch-all) should build listeners on those ports only', () => {
    const only = resources(withEgress(`  - port: { number: 5432, protocol: TCP, name: tcp-db }
    hosts: [data/db.data.svc.cluster.local, ./reviews.default.svc.cluster.local]
`));
    const names = only.listeners.map((l) => String(l['name'])).filter((n) => n !== 'virtualInbound' && n !== 'virtualOutbound');
    assert.deepEqual(names, ['10.96.0.30_5432'], 'reviews has no port 5432: left out; no 9080 listener without a catch-all');
  });

  it('given an egress bind without captureMode NONE should listen at the bind without binding the port (reached through virtualOutbound)', () => {
    const l = resources(withEgress(`  - port: { number: 9080, protocol: HTTP, name: http }
    bind: 127.0.0.5
    hosts: [./reviews.default.svc.cluster.local]
`)).listeners.find((x) => x['name'] === '127.0.0.5_9080') as any;
    assert.ok(l);
    assert.deepEqual(l.bindToPort, { value: false });
  });

  it('given the cached generator should serve the same listeners as the uncached build, and a bind edit should change them', async () => {
    const watch = { typeUrl: TYPE_URL.listener, names: new Set<string>(), wildcard: true };
    const p = proxyFromNode(sidecarNode());
    const cachedGen = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true });
    const names = async (yaml: string, gen: SidecarGenerator): Promise<string[]> => (await gen.generate(p, watch, proxyRequestPush(sidecarModel(yaml).snapshot))).resources.map((r) => r.name);
    const plain = await names(BOUND, new SidecarGenerator({ sendUnhealthyEndpoints: false }));
    assert.deepEqual(await names(BOUND, cachedGen), plain);
    assert.ok(plain.includes('127.0.0.1_9080'));
    const moved = await names(BOUND.replace('bind: 127.0.0.1', 'bind: 127.0.0.9'), cachedGen);
    assert.ok(moved.includes('127.0.0.9_9080') && !moved.includes('127.0.0.1_9080'), moved.join(', '));
  });
});
