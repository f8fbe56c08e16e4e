import assert from 'node:assert/strict';
import { createMetrics } from '../../../core/index.js';
import { simulateRequest, type SimulatedRequest } from '../../simulator/request-simulator.js';
import { TYPE_URL } from '../../server/contracts.js';
import { checkConsistency } from './consistency-checker.js';
import { conflictRecorderFrom } from './conflict-recorder.js';
import { buildSidecarResources } from './sidecar-generator.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH, LEGACY_SNIFFED_SERVICE, PP_GRPC_ON_9080 } from './testing/sidecar-mesh.js';

// A service whose port has no protocol (sniffed), with a VirtualService, and the productpage sidecar as one of its endpoints.
const SNIFFED = `${SIDECAR_MESH}
---
${LEGACY_SNIFFED_SERVICE}
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: legacy, namespace: default, generation: 2 }
spec:
  hosts: [legacy]
  http:
  - name: to-reviews
    match: [{ uri: { prefix: /reviews } }]
    route: [{ destination: { host: reviews, subset: v1 } }]
  - name: rest
    route: [{ destination: { host: legacy } }]
`;
const LEGACY = 'outbound|7000||legacy.default.svc.cluster.local';

describe('protocol sniffing on sidecar listeners (ports of unknown protocol)', () => {
  for (const mode of ['STRICT', 'PERMISSIVE'] as const) {
    const { proxy, snap } = sidecarAt(sidecarModel(SNIFFED.replace('mode: STRICT', `mode: ${mode}`)));
    const cfg = allSidecarResources(proxy, snap);
    const cases: { name: string; req: SimulatedRequest; want: { outcome: string; filterChain?: string; route?: string; clusters?: string[] } }[] = [
      {
        name: 'given HTTP to the VIP should take the HTTP chain (http_inspector) and the VirtualService routes on RDS legacy...:7000',
        req: { address: '10.96.0.70', port: 7000, host: 'legacy:7000', path: '/reviews/1' },
        want: { outcome: 'routed', filterChain: '10.96.0.70_7000-http', route: 'to-reviews', clusters: ['outbound|9080|v1|reviews.default.svc.cluster.local'] },
      },
      {
        name: 'given HTTP to the VIP with a Host no service has should still reach the service (its own route configuration takes every domain, as istiod)',
        req: { address: '10.96.0.70', port: 7000, host: 'example.com', path: '/' },
        want: { outcome: 'routed', filterChain: '10.96.0.70_7000-http', route: 'rest', clusters: [LEGACY] },
      },
      {
        name: 'given raw TCP to the VIP should take the TCP chain to the service',
        req: { protocol: 'tcp', address: '10.96.0.70', port: 7000 },
        want: { outcome: 'routed', filterChain: '10.96.0.70_7000-tcp', clusters: [LEGACY] },
      },
      {
        name: 'given HTTP over mesh mTLS to the app port should reach the inbound HCM',
        req: { direction: 'inbound', address: '10.0.0.1', port: 7000, tls: true, alpn: ['mesh-http/1.1', 'mesh'], host: 'legacy:7000' },
        want: { outcome: 'routed', filterChain: 'inbound|7000||-mtls-http', clusters: ['inbound|7000||'] },
      },
      {
        name: 'given TCP over mesh mTLS to the app port should reach the inbound tcp_proxy',
        req: { direction: 'inbound', protocol: 'tcp', address: '10.0.0.1', port: 7000, tls: true, alpn: ['mesh-peer-exchange', 'mesh'] },
        want: { outcome: 'routed', filterChain: 'inbound|7000||-mtls-tcp', clusters: ['inbound|7000||'] },
      },
      ...(mode === 'PERMISSIVE'
        ? [
            {
              name: 'given plaintext HTTP to the app port should reach the inbound HCM',
              req: { direction: 'inbound' as const, address: '10.0.0.1', port: 7000, host: 'legacy:7000' },
              want: { outcome: 'routed', filterChain: 'inbound|7000||-plaintext-http', clusters: ['inbound|7000||'] },
            },
            {
              name: 'given plaintext TCP to the app port should reach the inbound tcp_proxy',
              req: { direction: 'inbound' as const, protocol: 'tcp' as const, address: '10.0.0.1', port: 7000 },
              want: { outcome: 'routed', filterChain: 'inbound|7000||-plaintext-tcp', clusters: ['inbound|7000||'] },
            },
          ]
        : []),
    ];
    for (const c of cases) {
      it(`${c.name} (${mode})`, () => {
        const r = simulateRequest(cfg, c.req);
        assert.equal(r.outcome, c.want.outcome, JSON.stringify(r));
        if (c.want.filterChain) assert.equal(r.filterChain, c.want.filterChain);
        if (c.want.route) assert.equal(r.route, c.want.route);
        if (c.want.clusters) assert.deepEqual(r.clusters?.map((x) => x.name), c.want.clusters);
      });
    }
    it(`given the sniffed port of a service with a VIP should name its route configuration <host>:<port> with only that service's virtual host, and stay consistent (${mode})`, () => {
      const names = cfg.routes.map((r) => r['name']);
      assert.ok(!names.includes('7000'), `no HTTP listener on 0.0.0.0_7000 asks for RDS 7000: ${names.join(',')}`);
      const own = cfg.routes.find((r) => r['name'] === 'legacy.default.svc.cluster.local:7000');
      assert.deepEqual(
        (own?.['virtualHosts'] as Record<string, unknown>[] | undefined)?.map((vh) => [vh['name'], vh['domains']]),
        [['legacy.default.svc.cluster.local:7000', ['*']]],
      );
      assert.deepEqual(checkConsistency(cfg), []);
    });
  }

  it('given a sniffed port of a service without a VIP should keep the shared route configuration <port> (with its catch-all)', () => {
    const { proxy, snap } = sidecarAt(sidecarModel(SNIFFED.replace('  addresses: [10.96.0.70]\n', '')));
    const cfg = allSidecarResources(proxy, snap);
    const rc = cfg.routes.find((r) => r['name'] === '7000');
    assert.deepEqual((rc?.['virtualHosts'] as Record<string, unknown>[] | undefined)?.map((vh) => vh['name']), ['legacy.default.svc.cluster.local:7000', 'allow_any']);
    const r = simulateRequest(cfg, { address: '10.0.0.77', port: 7000, host: 'legacy:7000', path: '/' });
    assert.deepEqual([r.outcome, r.filterChain, r.clusters?.map((x) => x.name)], ['routed', '0.0.0.0_7000-http', [LEGACY]]);
    assert.deepEqual(checkConsistency(cfg), []);
  });

  it('given a port named with a protocol should not sniff it (an HTTP port keeps its shared HTTP listener)', () => {
    const { proxy, snap } = sidecarAt(sidecarModel(SNIFFED.replace('ports: [{ number: 7000, name: legacy }]', 'ports: [{ number: 7000, name: http, protocol: HTTP }]')));
    const names = [...buildSidecarResources(proxy, TYPE_URL.listener, snap, undefined, { sendUnhealthyEndpoints: false }).keys()];
    assert.ok(names.includes('0.0.0.0_7000') && !names.includes('10.96.0.70_7000'), names.join(','));
  });
});

const TCP_CLASH = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: db-copy, namespace: data }
spec:
  hosts: [db-copy.data.svc.cluster.local]
  addresses: [10.96.0.30]
  location: MESH_INTERNAL
  ports: [{ number: 5432, name: tcp, protocol: TCP }]
  resolution: STATIC
---
${PP_GRPC_ON_9080}`;

describe('listener conflict metrics (pilot_conflict_*)', () => {
  it('given two TCP services on one VIP and port and two protocols on one inbound port should count each once, and clear on a snapshot without them', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const conflicts = conflictRecorderFrom(metrics);
    const gauge = async (name: string): Promise<string | undefined> => new RegExp(`^${name} (\\d+)$`, 'm').exec(await metrics.text())?.[1];
    const clash = sidecarModel(TCP_CLASH);
    const at = sidecarAt(clash);
    const listeners = buildSidecarResources(at.proxy, TYPE_URL.listener, at.snap, undefined, { sendUnhealthyEndpoints: false, conflicts });
    assert.ok(listeners.has('10.96.0.30_5432'), 'the first service (by host) keeps the listener');
    // NOTE: a second proxy meeting the same outbound conflict does not count it again.
    buildSidecarResources(at.proxy, TYPE_URL.listener, at.snap, undefined, { sendUnhealthyEndpoints: false, conflicts });
    const other = sidecarAt(clash, sidecarNode({ id: 'sidecar~10.0.0.9~other.default~default.svc.cluster.local', ipAddresses: ['10.0.0.9'] }));
    buildSidecarResources(other.proxy, TYPE_URL.listener, other.snap, undefined, { sendUnhealthyEndpoints: false, conflicts });
    assert.equal(await gauge('pilot_conflict_outbound_listener_tcp_over_current_tcp'), '1');
    assert.equal(await gauge('pilot_conflict_inbound_listener'), '1', 'productpage:9080 (HTTP) and pp-grpc:9081 -> 9080 (GRPC)');
    // NOTE: the conflicts resolved in a newer snapshot (another model: its token set past the first's).
    const later = sidecarAt(sidecarModel(SIDECAR_MESH));
    buildSidecarResources(later.proxy, TYPE_URL.listener, { ...later.snap, token: at.snap.token + 1 }, undefined, { sendUnhealthyEndpoints: false, conflicts });
    assert.equal(await gauge('pilot_conflict_outbound_listener_tcp_over_current_tcp'), '0');
    assert.equal(await gauge('pilot_conflict_inbound_listener'), '0');
  });
});
