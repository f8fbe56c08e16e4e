/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
/**
 * Sidecar `ingress` listeners and their `tls` (istiod's buildInboundChainConfigs, buildInboundClustersFromSidecar,
 * BuildListenerTLSContext with ENABLE_TLS_ON_SIDECAR_INGRESS): outcomes walked by the request simulator on
 * everything the sidecar gets, plus the TLS context itself.
 */
import assert from 'node:assert/strict';
import { protoRoot } from '../../protos/root.js';
import { validate } from '../../protos/validate.js';
import { simulateRequest, type SimulatedRequest } from '../../simulator/request-simulator.js';
import { checkConsistency } from './consistency-checker.js';
import { allSidecarResources, sidecarAt, sidecarModel, SIDECAR_MESH } from './testing/sidecar-mesh.js';

/** productpage's Sidecar: HTTPS 8443 (SIMPLE, files, to 127.0.0.1:8080), TLS 9443 (MUTUAL, to the original port), HTTPS 7443 (SIMPLE, but STRICT). */
const INGRESS_TLS = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: productpage-ingress, namespace: default, generation: 3 }
spec:
  workloadSelector: { labels: { app: productpage } }
  ingress:
  - port: { number: 8443, protocol: HTTPS, name: https-app }
    defaultEndpoint: 127.0.0.1:8080
    tls: { mode: SIMPLE, serverCertificate: /etc/certs/tls.crt, privateKey: /etc/certs/tls.key }
  - port: { number: 9443, protocol: TLS, name: tls-app }
    tls: { mode: MUTUAL, serverCertificate: /etc/certs/tls.crt, privateKey: /etc/certs/tls.key, caCertificates: /etc/certs/ca.crt, minProtocolVersion: TLSV1_2 }
  - port: { number: 7443, protocol: HTTPS, name: https-strict }
    defaultEndpoint: 0.0.0.0:7000
    tls: { mode: SIMPLE, serverCertificate: /etc/certs/tls.crt, privateKey: /etc/certs/tls.key }
---
apiVersion: security.mesh.io/v1
kind: PeerAuthentication
metadata: { name: productpage, namespace: default }
spec:
  selector: { matchLabels: { app: productpage } }
  mtls: { mode: STRICT }
  portLevelMtls: { 8443: { mode: DISABLE }, 9443: { mode: DISABLE } }
`;

const MTLS = { tls: true, alpn: ['mesh-peer-exchange', 'mesh'] } as const;
const inbound = (port: number, more: Partial<SimulatedRequest> = {}): SimulatedRequest => ({ direction: 'inbound', address: '10.0.0.1', port, host: `productpage:${port}`, path: '/', ...more });

function resources(tlsOnSidecarIngress: boolean) {
  const { proxy, snap } = sidecarAt(sidecarModel(INGRESS_TLS));
  return allSidecarResources(proxy, snap, { tlsOnSidecarIngress });
}

function tlsContext(cfg: ReturnType<typeof resources>, chain: string): any {
  const vi = cfg.listeners.find((l) => l['name'] === 'virtualInbound') as any;
  const c = vi.filterChains.find((x: any) => x.name === chain);
  assert.ok(c, `virtualInbound has chain ${chain} (has ${vi.filterChains.map((x: any) => x.name).join(', ')})`);
  return c.transportSocket?.typedConfig;
}

describe('Sidecar ingress listeners and ingress TLS (ENABLE_TLS_ON_SIDECAR_INGRESS)', () => {
  before(() => protoRoot());
  const on = resources(true);
  const off = resources(false);

  const walks: { name: string; cfg: () => ReturnType<typeof resources>; req: SimulatedRequest; want: Record<string, unknown> }[] = [
    {
      name: 'given HTTPS with tls SIMPLE on a DISABLE port should terminate TLS and route the request to the default endpoint 127.0.0.1:8080',
      cfg: () => on,
      req: inbound(8443, { tls: true, sni: 'productpage.example.com' }),
      want: { outcome: 'routed', filterChain: 'inbound|8443||-tls', tlsSecrets: ['file-cert:/etc/certs/tls.crt~/etc/certs/tls.key'], routeConfig: 'inbound|8443||', clusters: [['inbound|8443||', ['127.0.0.1:8080']]] },
    },
    {
      name: 'given HTTPS with tls SIMPLE on a DISABLE port should match no chain for plaintext (as Envoy: no fall back from the port)',
      cfg: () => on,
      req: inbound(8443),
      want: { outcome: 'no-filter-chain' },
    },
    {
      name: 'given TLS with tls MUTUAL on a DISABLE port should terminate TLS and proxy TCP to the original destination port',
      cfg: () => on,
      req: inbound(9443, { protocol: 'tcp', tls: true }),
      want: { outcome: 'routed', filterChain: 'inbound|9443||-tls', tlsSecrets: ['file-cert:/etc/certs/tls.crt~/etc/certs/tls.key', 'file-root:/etc/certs/ca.crt'], clusters: [['inbound|9443||', ['10.0.0.1:9443']]] },
    },
    {
      name: 'given tls on a STRICT port should keep mesh mTLS (the user TLS is ignored) and speak HTTP after termination, to the pod IP default endpoint',
      cfg: () => on,
      req: inbound(7443, MTLS),
      want: { outcome: 'routed', filterChain: 'inbound|7443||-mtls', tlsSecrets: ['default', 'ROOTCA'], routeConfig: 'inbound|7443||', clusters: [['inbound|7443||', ['10.0.0.1:7000']]] },
    },
    {
      name: 'given the flag off should pass TLS to a DISABLE HTTPS port through as TCP, unterminated',
      cfg: () => off,
      req: inbound(8443, { protocol: 'tcp', tls: true }),
      want: { outcome: 'routed', filterChain: 'inbound|8443||-plaintext', tlsSecrets: undefined, clusters: [['inbound|8443||', ['127.0.0.1:8080']]] },
    },
    {
      name: 'given a Sidecar with ingress listeners should not build the service port 9080 (ingress replaces the service ports): mTLS to it passes through',
      cfg: () => on,
      req: inbound(9080, MTLS),
      want: { outcome: 'routed', filterChain: 'virtualInbound-mtls', clusters: [['InboundPassthroughCluster', ['10.0.0.1:9080']]] },
    },
  ];
  for (const c of walks) {
    it(c.name, () => {
      const r = simulateRequest(c.cfg(), c.req);
      const got: Record<string, unknown> = { outcome: r.outcome };
      for (const k of Object.keys(c.want)) if (k !== 'outcome' && k !== 'clusters') got[k] = (r as unknown as Record<string, unknown>)[k];
      if ('clusters' in c.want) got['clusters'] = r.clusters?.map((x) => [x.name, x.endpoints]);
      assert.deepEqual(got, c.want);
    });
  }

  it('given tls SIMPLE with file paths should serve the certificate over SDS as file-cert:<chain>~<key>, ALPN h2 and http/1.1, no client certificate', () => {
    const t = tlsContext(on, 'inbound|8443||-tls');
    assert.deepEqual(t.commonTlsContext.tlsCertificateSdsSecretConfigs.map((s: any) => s.name), ['file-cert:/etc/certs/tls.crt~/etc/certs/tls.key']);
    assert.deepEqual(t.commonTlsContext.alpnProtocols, ['h2', 'http/1.1']);
    assert.equal(t.commonTlsContext.combinedValidationContext, undefined);
    assert.deepEqual(t.requireClientCertificate, { value: false });
  });

  it('given tls MUTUAL should verify clients with file-root:<ca>, require a client certificate and keep the minimum TLS version', () => {
    const t = tlsContext(on, 'inbound|9443||-tls');
    assert.equal(t.commonTlsContext.combinedValidationContext.validationContextSdsSecretConfig.name, 'file-root:/etc/certs/ca.crt');
    assert.deepEqual(t.requireClientCertificate, { value: true });
    assert.equal(t.commonTlsContext.tlsParams.tlsMinimumProtocolVersion, 'TLSv1_2', "Envoy's enum name for the API's TLSV1_2");
    assert.deepEqual(t.commonTlsContext.alpnProtocols, ['h2', 'http/1.1'], 'istiod offers the HTTP ALPN on a TCP ingress too');
  });

  it('given ingress listeners should build inbound clusters per ingress port (STATIC to the default endpoint, else the original destination) and none for the service port', () => {
    const byName = new Map(on.clusters.map((c) => [c['name'] as string, c as any]));
    assert.equal(byName.has('inbound|9080||'), false);
    assert.deepEqual([byName.get('inbound|8443||')?.type, byName.get('inbound|9443||')?.type, byName.get('inbound|7443||')?.type], ['STATIC', 'ORIGINAL_DST', 'STATIC']);
    assert.equal(byName.get('inbound|8443||').upstreamBindConfig, undefined, 'localhost: no 127.0.0.6 bind');
    assert.equal(byName.get('inbound|7443||').upstreamBindConfig.sourceAddress.address, '127.0.0.6', 'the pod IP: bound to 127.0.0.6 as istiod');
  });

  it('given ingress TLS should send a consistent, protoc-gen-validate clean virtualInbound whose chains name the Sidecar', () => {
    assert.deepEqual(checkConsistency(on), []);
    const vi = on.listeners.find((l) => l['name'] === 'virtualInbound')!;
    assert.deepEqual(validate('envoy.config.listener.v3.Listener', vi), []);
    const r = simulateRequest(on, inbound(8443, { tls: true }));
    assert.ok(r.sources.some((s) => s.startsWith('Sidecar/default/productpage-ingress')), `sources ${r.sources.join(', ')}`);
  });
});
