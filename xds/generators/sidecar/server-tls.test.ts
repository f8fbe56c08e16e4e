import assert from 'node:assert/strict';
import { protoRoot } from '../../protos/root.js';
import { validate } from '../../protos/validate.js';
import { buildSidecarListeners } from './listener-builder.js';
import { envoyTlsProtocol, inboundMtlsParams, MESH_MTLS_CIPHER_SUITES, serverSecrets, serverTlsSocket } from './server-tls.js';
import { sidecarAt, sidecarModel, SIDECAR_MESH } from './testing/sidecar-mesh.js';

describe('server TLS (gateway servers and Sidecar ingress)', () => {
  before(() => protoRoot());
  const versions: { api: string | undefined; envoy: string | undefined }[] = [
    { api: 'TLSV1_0', envoy: 'TLSv1_0' },
    { api: 'TLSV1_2', envoy: 'TLSv1_2' },
    { api: 'TLSV1_3', envoy: 'TLSv1_3' },
    { api: 'TLS_AUTO', envoy: undefined },
    { api: undefined, envoy: undefined },
  ];
  for (const c of versions) {
    it(`given the API's ${String(c.api)} should give Envoy's ${String(c.envoy)}`, () => assert.equal(envoyTlsProtocol(c.api), c.envoy));
  }

  it('given minimum and maximum TLS versions should build a DownstreamTlsContext that passes protoc-gen-validate', () => {
    const socket = serverTlsSocket({ mode: 'SIMPLE', serverCertificate: '/c.pem', privateKey: '/k.pem', minProtocolVersion: 'TLSV1_2', maxProtocolVersion: 'TLSV1_3' }, []);
    const { '@type': _type, ...tc } = socket['typedConfig'] as Record<string, unknown>;
    assert.deepEqual(validate('envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext', tc), []);
    assert.deepEqual((tc['commonTlsContext'] as { tlsParams: unknown }).tlsParams, { tlsMinimumProtocolVersion: 'TLSv1_2', tlsMaximumProtocolVersion: 'TLSv1_3' });
  });

  const params: { mode: 'SIMPLE' | 'MUTUAL' | 'OPTIONAL_MUTUAL' | 'MESH_MUTUAL' | 'PASSTHROUGH'; want: boolean }[] = [
    { mode: 'SIMPLE', want: true },
    { mode: 'OPTIONAL_MUTUAL', want: true },
    { mode: 'MESH_MUTUAL', want: false },
    { mode: 'PASSTHROUGH', want: false },
  ];
  for (const c of params) {
    it(`given mode ${c.mode} with a minimum version and cipher suites should ${c.want ? '' : 'not '}apply them (istiod: SIMPLE, MUTUAL and OPTIONAL_MUTUAL only)`, () => {
      const socket = serverTlsSocket({ mode: c.mode, serverCertificate: '/c.pem', privateKey: '/k.pem', caCertificates: '/ca.pem', minProtocolVersion: 'TLSV1_3', cipherSuites: ['ECDHE-RSA-AES128-GCM-SHA256'] }, []);
      const common = (socket['typedConfig'] as { commonTlsContext: { tlsParams?: unknown } }).commonTlsContext;
      assert.deepEqual(common.tlsParams, c.want ? { tlsMinimumProtocolVersion: 'TLSv1_3', cipherSuites: ['ECDHE-RSA-AES128-GCM-SHA256'] } : undefined);
    });
  }

  const secrets: { name: string; tls: Parameters<typeof serverSecrets>[0]; want: ReturnType<typeof serverSecrets> }[] = [
    { name: 'given MUTUAL with a CA file should verify clients with file-root:<ca>', tls: { mode: 'MUTUAL', serverCertificate: '/c', privateKey: '/k', caCertificates: '/ca' }, want: { certs: ['file-cert:/c~/k'], ca: 'file-root:/ca' } },
    { name: 'given MUTUAL without a CA file should verify clients with the mesh root ROOTCA (as istiod)', tls: { mode: 'MUTUAL', serverCertificate: '/c', privateKey: '/k' }, want: { certs: ['file-cert:/c~/k'], ca: 'ROOTCA' } },
    { name: 'given PASSTHROUGH (the API default) with a CA file should not verify clients (as istiod)', tls: { mode: 'PASSTHROUGH', serverCertificate: '/c', privateKey: '/k', caCertificates: '/ca' }, want: { certs: ['file-cert:/c~/k'] } },
    { name: 'given SIMPLE with a CA file should not verify clients', tls: { mode: 'SIMPLE', serverCertificate: '/c', privateKey: '/k', caCertificates: '/ca' }, want: { certs: ['file-cert:/c~/k'] } },
  ];
  for (const c of secrets) it(c.name, () => assert.deepEqual(serverSecrets(c.tls), c.want));
});

describe('inbound mesh mTLS parameters (istiod BuildInboundTLS, meshConfig.meshMTLS)', () => {
  const cases: { name: string; meshMTLS?: { minProtocolVersion?: 'TLS_AUTO' | 'TLSV1_2' | 'TLSV1_3'; cipherSuites?: string[] }; want: Record<string, unknown> }[] = [
    { name: 'given no meshMTLS should allow TLS 1.2-1.3 with istiod\'s strong cipher suites', want: { tlsMinimumProtocolVersion: 'TLSv1_2', tlsMaximumProtocolVersion: 'TLSv1_3', cipherSuites: [...MESH_MTLS_CIPHER_SUITES] } },
    { name: 'given meshMTLS.minProtocolVersion TLSV1_3 should require TLS 1.3', meshMTLS: { minProtocolVersion: 'TLSV1_3' }, want: { tlsMinimumProtocolVersion: 'TLSv1_3', tlsMaximumProtocolVersion: 'TLSv1_3', cipherSuites: [...MESH_MTLS_CIPHER_SUITES] } },
    { name: 'given meshMTLS.cipherSuites should offer those instead', meshMTLS: { cipherSuites: ['ECDHE-RSA-AES256-GCM-SHA384'] }, want: { tlsMinimumProtocolVersion: 'TLSv1_2', tlsMaximumProtocolVersion: 'TLSv1_3', cipherSuites: ['ECDHE-RSA-AES256-GCM-SHA384'] } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(inboundMtlsParams(c.meshMTLS ? { meshMTLS: c.meshMTLS } : {}), c.want));

  it('given meshMTLS TLSV1_3 should put the parameters on every mTLS chain of virtualInbound, and they pass protoc-gen-validate', function () {
    this.timeout(60_000);
    const { proxy, snap } = sidecarAt(sidecarModel(SIDECAR_MESH, { meshMTLS: { minProtocolVersion: 'TLSV1_3' } }));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- walks built Envoy objects
    const inbound = buildSidecarListeners(snap.pushContext, proxy, snap.endpoints).find((l) => l.name === 'virtualInbound') as any;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- walks built Envoy objects
    const tls = inbound.filterChains.filter((c: any) => c.transportSocket).map((c: any) => c.transportSocket.typedConfig.commonTlsContext.tlsParams);
    assert.ok(tls.length >= 2, 'STRICT: the port and the passthrough mTLS chains');
    for (const p of tls) assert.deepEqual(p, inboundMtlsParams({ meshMTLS: { minProtocolVersion: 'TLSV1_3' } }));
    assert.deepEqual(validate('envoy.config.listener.v3.Listener', inbound), []);
  });
});
