// Starts a real grpc-js server on 127.0.0.1:0 over TLS with the certificate service registered, the way the
// meshd assembly will: serving certificate issued by the CA, client certificates requested but optional.
import * as grpc from '@grpc/grpc-js';
import type { MeshCa } from '../authority/mesh-ca.js';
import { createCaServerCredentials } from '../server/ca-server-credentials.js';
import { ServingCertificateManager } from '../server/serving-certificate.js';
import type { CertificateService } from '../server/certificate-service.js';
import { closeGrpcServer } from '../../core/index.js';

/** A running test server. */
export interface TestCaServer {
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** TLS name of the serving certificate (use as the client's serverName). */
  readonly serverName: string;
  /** Roots that verify the serving certificate. */
  readonly rootCertPem: string;
  close(): Promise<void>;
}

/** Binds `service` on a fresh server at 127.0.0.1:0 (grpc-js `serverOptions` passed on); `close()` shuts it down. */
export async function startTestCaServer(ca: MeshCa, service: CertificateService, serverOptions: grpc.ServerOptions = {}): Promise<TestCaServer> {
  const serverName = 'meshd.mesh-system.svc';
  const serving = new ServingCertificateManager(ca, { dnsNames: [serverName], ttlMs: 3600_000 });
  const provider = await serving.start();
  const server = new grpc.Server(serverOptions);
  service.register(server);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', createCaServerCredentials(provider), (err, p) => (err ? reject(err) : resolve(p)));
  });
  return {
    address: `127.0.0.1:${port}`,
    serverName,
    rootCertPem: ca.trustBundlePem().join(''),
    close: () => {
      serving.stop();
      return closeGrpcServer(server, 2000);
    },
  };
}
