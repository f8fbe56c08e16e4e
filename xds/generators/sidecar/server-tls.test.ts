import assert from 'node:assert/strict';
import { protoRoot } from '../../protos/root.js';
import { validate } from '../../protos/validate.js';
import { envoyTlsProtocol, serverTlsSocket } from './server-tls.js';

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
});
