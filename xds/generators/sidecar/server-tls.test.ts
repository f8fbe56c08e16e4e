import assert from 'node:assert/strict';
import { protoRoot } from '../../protos/root.js';
import { validate } from '../../protos/validate.js';
import { envoyTlsProtocol, serverSecrets, serverTlsSocket } from './server-tls.js';

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
