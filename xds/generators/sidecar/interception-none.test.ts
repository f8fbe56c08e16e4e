/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
/**
 * A proxy that does not intercept (node metadata `INTERCEPTION_MODE: NONE`; istiod's InterceptionNone): no
 * virtual listeners, outbound listeners bound at 127.0.0.1, inbound only for Sidecar ingress listeners (bound,
 * captureMode DEFAULT included), uncached and through the cached generator beside a redirecting proxy.
 */
import assert from 'node:assert/strict';
import { proxyFromNode, proxyRequestPush } from '../../../core/index.js';
import { TYPE_URL } from '../../server/contracts.js';
import { simulateRequest } from '../../simulator/request-simulator.js';
import { checkConsistency } from './consistency-checker.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const NONE = { LABELS: { app: 'productpage' }, NAMESPACE: 'default', INTERCEPTION_MODE: 'NONE' };
const INGRESS = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: productpage-ingress, namespace: default }
spec:
  workloadSelector: { labels: { app: productpage } }
  ingress:
  - port: { number: 9080, protocol: HTTP, name: http }
    defaultEndpoint: 127.0.0.1:8080
`;

function resources(yaml: string, metadata: Record<string, unknown>) {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml), sidecarNode({ metadata }));
  return allSidecarResources(proxy, snap);
}
const names = (list: readonly Record<string, unknown>[]): string[] => list.map((x) => String(x['name'])).sort();

describe('a proxy with INTERCEPTION_MODE NONE', () => {
  const cfg = resources(SIDECAR_MESH, NONE);

  it('given no Sidecar should get no virtual listeners and every outbound listener bound at 127.0.0.1', () => {
    assert.deepEqual(names(cfg.listeners), ['127.0.0.1_443', '127.0.0.1_5432', '127.0.0.1_9080']);
    for (const l of cfg.listeners as any[]) assert.equal(l.bindToPort, undefined, `${l.name} binds its port`);
  });

  it('given no Sidecar ingress should get no inbound cluster for its service port (as istiod), and stay consistent', () => {
    assert.ok(!names(cfg.clusters).some((n) => n.startsWith('inbound|')), names(cfg.clusters).join(', '));
    assert.deepEqual(checkConsistency(cfg), []);
  });

  it('given an app calling 127.0.0.1:9080 with the reviews Host should route by the VirtualService', () => {
    const r = simulateRequest(cfg, { direction: 'outbound', protocol: 'http', address: '127.0.0.1', port: 9080, host: 'reviews:9080', path: '/reviews/1', headers: { 'end-user': 'jason' } });
    assert.deepEqual([r.outcome, r.listener, r.clusters?.map((c) => c.name)], ['routed', '127.0.0.1_9080', ['outbound|9080|v2|reviews.default.svc.cluster.local']]);
  });

  it('given a Sidecar ingress listener with captureMode DEFAULT should bind it at the proxy address with its cluster', () => {
    const withIngress = resources(INGRESS, NONE);
    assert.ok(names(withIngress.listeners).includes('10.0.0.1_9080'), names(withIngress.listeners).join(', '));
    assert.ok(names(withIngress.clusters).includes('inbound|9080||'));
    const r = simulateRequest(withIngress, { direction: 'inbound', address: '10.0.0.1', port: 9080, host: 'productpage:9080', path: '/', tls: true, alpn: ['mesh-http/1.1', 'mesh'] });
    assert.deepEqual([r.outcome, r.listener, r.clusters?.map((c) => [c.name, c.endpoints])], ['routed', '10.0.0.1_9080', [['inbound|9080||', ['127.0.0.1:8080']]]]);
  });

  it('given a redirecting proxy should keep the virtual listeners and the usual addresses', () => {
    const usual = names(resources(SIDECAR_MESH, { LABELS: { app: 'productpage' }, NAMESPACE: 'default' }).listeners);
    assert.ok(usual.includes('virtualOutbound') && usual.includes('virtualInbound') && usual.includes('0.0.0.0_9080'), usual.join(', '));
  });

  it('given the cached generator should serve each proxy its own listeners, as uncached, from one cache', async () => {
    const model = sidecarModel(SIDECAR_MESH);
    const push = proxyRequestPush(model.snapshot);
    const watch = { typeUrl: TYPE_URL.listener, names: new Set<string>(), wildcard: true };
    const cached = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true });
    const plain = new SidecarGenerator({ sendUnhealthyEndpoints: false });
    const redirect = proxyFromNode(sidecarNode());
    const none = proxyFromNode(sidecarNode({ id: 'sidecar~10.0.0.2~productpage-2.default~default.svc.cluster.local', ipAddresses: ['10.0.0.2'], podName: 'productpage-2', metadata: NONE }));
    const of = async (gen: SidecarGenerator, p: typeof none): Promise<string[]> => (await gen.generate(p, watch, push)).resources.map((r) => r.name);
    assert.deepEqual(await of(cached, redirect), await of(plain, redirect));
    assert.deepEqual(await of(cached, none), await of(plain, none));
    assert.deepEqual(await of(cached, none), ['127.0.0.1_443', '127.0.0.1_5432', '127.0.0.1_9080']);
  });
});
