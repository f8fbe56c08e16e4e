// bench:ca's floor server speaks enough gRPC for the real client: a CreateCertificate call through grpc-js
// comes back with the fixed chain, leaf first and root last, after a signature on a signer thread.
import assert from 'node:assert/strict';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { CertificateClient, createCsrPem } from '../../../ca/index.js';
import { startBenchServer } from './bench-server.js';

describe('bench:ca floor server', function () {
  this.timeout(30_000);

  it('given a CreateCertificate call from grpc-js should answer the serving chain issued by the CA', async () => {
    const server = await startBenchServer(1, 'floor');
    const { address, serverName, rootCertPem, tokens } = server.info;
    const client = new CertificateClient({ address, rootCertPem, serverName, token: () => tokens[0]! });
    try {
      const csr = createCsrPem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, { uris: ['spiffe://cluster.local/ns/bench/sa/sa0'] });
      const [first, second] = await Promise.all([client.createCertificate(csr), client.createCertificate(csr)]);
      assert.deepEqual(first, second);
      const chain = first.map((pem) => new X509Certificate(pem));
      assert.ok(chain.length >= 2, `expected leaf..root, got ${chain.length} certificate(s)`);
      assert.match(chain[0]!.subjectAltName ?? '', /DNS:meshd\.mesh-system\.svc/);
      assert.equal(chain.at(-1)!.toString(), new X509Certificate(rootCertPem).toString());
    } finally {
      client.close();
      await server.close();
    }
  });
});
