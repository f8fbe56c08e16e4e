/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
/**
 * Sidecar `ingress[].captureMode: NONE` and `ingress[].bind` (istiod's getBindToPort, inboundCustomListener,
 * getSidecarInboundBindIPs, CanBindToPort): the port's own listener bound at bind:port, walked by the request
 * simulator, uncached and through the cached generator.
 */
import assert from 'node:assert/strict';
import { proxyFromNode, proxyRequestPush } from '../../../core/index.js';
import { decode } from '../../protos/codec.js';
import { validate } from '../../protos/validate.js';
import { TYPE_URL } from '../../server/contracts.js';
import { simulateRequest, type SimulatedRequest } from '../../simulator/request-simulator.js';
import { checkConsistency } from './consistency-checker.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { ENVOY } from './sidecar-names.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

/**
 * productpage (10.0.0.1, STRICT in `default`): 9080 HTTP captured (virtualInbound), 8080 HTTP NONE without bind,
 * 9090 TCP NONE bound to 127.0.0.1 (plaintext: PeerAuthentication DISABLE on it), 80 HTTP NONE (privileged).
 */
const BOUND = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: productpage-bind, namespace: default, generation: 5 }
spec:
  workloadSelector: { labels: { app: productpage } }
  ingress:
  - port: { number: 9080, protocol: HTTP, name: http-captured }
    defaultEndpoint: 127.0.0.1:9080
  - port: { number: 8080, protocol: HTTP, name: http-bound }
    captureMode: NONE
    defaultEndpoint: 127.0.0.1:18080
  - port: { number: 9090, protocol: TCP, name: tcp-bound }
    captureMode: NONE
    bind: 127.0.0.1
    defaultEndpoint: 127.0.0.1:19090
  - port: { number: 80, protocol: HTTP, name: http-privileged }
    captureMode: NONE
    defaultEndpoint: 127.0.0.1:18000
---
apiVersion: security.mesh.io/v1
kind: PeerAuthentication
metadata: { name: productpage, namespace: default }
spec:
  selector: { matchLabels: { app: productpage } }
  mtls: { mode: STRICT }
  portLevelMtls: { 9090: { mode: DISABLE } }
`;

const MTLS = { tls: true, alpn: ['mesh-http/1.1', 'mesh'] } as const;
const inbound = (address: string, port: number, more: Partial<SimulatedRequest> = {}): SimulatedRequest => ({ direction: 'inbound', address, port, host: `productpage:${port}`, path: '/', ...more });

function resources(metadata: Record<string, unknown> = {}) {
  const { proxy, snap } = sidecarAt(sidecarModel(BOUND), sidecarNode({ metadata: { LABELS: { app: 'productpage' }, NAMESPACE: 'default', ...metadata } }));
  return allSidecarResources(proxy, snap);
}

describe('Sidecar ingress captureMode NONE and bind: listeners of their own', () => {
  const cfg = resources();
  const byName = new Map(cfg.listeners.map((l) => [l['name'] as string, l as any]));

  it('given captureMode NONE should build <bind>_<port> listeners binding the port (default bind: the proxy address) and leave those ports out of virtualInbound', () => {
    assert.deepEqual([...byName.keys()].filter((n) => /^\d/.test(n) && n.split('_').length === 2 && byName.get(n).trafficDirection === 'INBOUND').sort(), ['10.0.0.1_80', '10.0.0.1_8080', '127.0.0.1_9090']);
    const l = byName.get('10.0.0.1_8080');
    assert.deepEqual(l.address, { socketAddress: { address: '10.0.0.1', portValue: 8080 } });
    assert.equal(l.bindToPort, undefined, 'binds the port (Envoy default true)');
    assert.equal(l.useOriginalDst, undefined);
    assert.ok(!l.listenerFilters.some((f: any) => f.name === 'envoy.filters.listener.original_dst'));
    const vi = byName.get('virtualInbound');
    const ports = new Set(vi.filterChains.map((c: any) => c.filterChainMatch?.destinationPort?.value).filter((p: unknown) => p !== undefined));
    assert.deepEqual([...ports], [9080], 'only the captured port stays a virtualInbound chain');
  });

  it('given the port chains should carry the mode of the PeerAuthentication, only the inspectors they need and the Sidecar as provenance', () => {
    const strict = byName.get('10.0.0.1_8080');
    assert.deepEqual(strict.filterChains.map((c: any) => c.name), ['inbound|8080||-mtls']);
    assert.deepEqual(strict.listenerFilters.map((f: any) => f.name), ['envoy.filters.listener.tls_inspector']);
    const plain = byName.get('127.0.0.1_9090');
    assert.deepEqual(plain.filterChains.map((c: any) => c.name), ['inbound|9090||-plaintext']);
    assert.deepEqual(plain.listenerFilters, []);
    assert.ok(JSON.stringify(strict.filterChains[0].metadata).includes('Sidecar/default/productpage-bind@5'));
  });

  const walks: { name: string; req: SimulatedRequest; want: Record<string, unknown> }[] = [
    {
      name: 'given mTLS to the bound port at the proxy address should take its listener to the default endpoint',
      req: inbound('10.0.0.1', 8080, MTLS),
      want: { outcome: 'routed', listener: '10.0.0.1_8080', filterChain: 'inbound|8080||-mtls', clusters: [['inbound|8080||', ['127.0.0.1:18080']]] },
    },
    {
      name: 'given plaintext TCP to the port bound at 127.0.0.1 should take its listener',
      req: inbound('127.0.0.1', 9090, { protocol: 'tcp' }),
      want: { outcome: 'routed', listener: '127.0.0.1_9090', filterChain: 'inbound|9090||-plaintext', clusters: [['inbound|9090||', ['127.0.0.1:19090']]] },
    },
    {
      name: 'given mTLS to the captured port should still go through virtualInbound',
      req: inbound('10.0.0.1', 9080, MTLS),
      want: { outcome: 'routed', listener: 'virtualInbound', filterChain: 'inbound|9080||-mtls', clusters: [['inbound|9080||', ['127.0.0.1:9080']]] },
    },
  ];
  for (const c of walks) {
    it(c.name, () => {
      const r = simulateRequest(cfg, c.req);
      assert.deepEqual({ outcome: r.outcome, listener: r.listener, filterChain: r.filterChain, clusters: r.clusters?.map((x) => [x.name, x.endpoints]) }, c.want);
    });
  }

  it('given every listener should be consistent and protoc-gen-validate clean', () => {
    assert.deepEqual(checkConsistency(cfg), []);
    for (const n of ['10.0.0.1_8080', '127.0.0.1_9090', '10.0.0.1_80']) assert.deepEqual(validate('envoy.config.listener.v3.Listener', byName.get(n)), [], n);
  });

  it('given an unprivileged proxy should leave out the privileged bound port (its cluster stays) and keep the others', () => {
    const names = resources({ UNPRIVILEGED_POD: 'true' }).listeners.map((l) => l['name']);
    assert.ok(!names.includes('10.0.0.1_80'), names.join(', '));
    assert.ok(names.includes('10.0.0.1_8080'));
  });

  it('given the cached generator should serve the same bound listeners as the uncached build', async () => {
    const model = sidecarModel(BOUND);
    const p = proxyFromNode(sidecarNode());
    const push = proxyRequestPush(model.snapshot);
    const watch = { typeUrl: TYPE_URL.listener, names: new Set<string>(), wildcard: true };
    const a = await new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true }).generate(p, watch, push);
    const b = await new SidecarGenerator({ sendUnhealthyEndpoints: false }).generate(p, watch, push);
    assert.deepEqual(a.resources.map((r) => r.name), b.resources.map((r) => r.name));
    const pick = (r: typeof a, name: string): Uint8Array | undefined => r.resources.find((x) => x.name === name)?.body;
    for (const name of ['10.0.0.1_8080', '127.0.0.1_9090']) {
      assert.ok(pick(a, name), name);
      assert.deepEqual(pick(a, name), pick(b, name), name);
      assert.equal((decode(ENVOY.listener, pick(a, name)!) as any).name, name);
    }
  });
});
