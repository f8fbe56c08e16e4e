// Loads ca/proto/ca.proto (mesh.v1.auth.MeshCertificateService) with @grpc/proto-loader.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** Full name of the certificate service. */
export const CERTIFICATE_SERVICE_NAME = 'mesh.v1.auth.MeshCertificateService';

/** CreateCertificate request as proto-loader decodes it (int64 as a number, Struct as fields). */
export interface MeshCertificateRequest {
  csr: string;
  validity_duration: number;
  metadata?: { fields?: Record<string, { stringValue?: string; kind?: string } | undefined> } | null;
}

/** CreateCertificate response. */
export interface MeshCertificateResponse {
  cert_chain: string[];
}

const PROTO_RELATIVE = join('ca', 'proto', 'ca.proto');

/** Finds ca/proto/ca.proto by walking up from this module (works from the source tree and from dist/). */
export function certificateProtoPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, PROTO_RELATIVE);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`${PROTO_RELATIVE}: not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

let cached: grpc.ServiceClientConstructor | undefined;

/** The generic grpc-js client constructor of the service; `.service` is its ServiceDefinition. */
export function certificateServiceClient(): grpc.ServiceClientConstructor {
  if (cached) return cached;
  const definition = protoLoader.loadSync(certificateProtoPath(), { keepCase: true, longs: Number, defaults: true, oneofs: true });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as { mesh: { v1: { auth: { MeshCertificateService: grpc.ServiceClientConstructor } } } };
  cached = loaded.mesh.v1.auth.MeshCertificateService;
  return cached;
}
