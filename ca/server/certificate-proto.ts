// Loads ca/proto/ca.proto (mesh.v1.auth.MeshCertificateService) with protobufjs.
// NOTE: not @grpc/proto-loader: it brings its own copy of protobufjs (about 23 MB of meshd's RSS) for
// one service of one method, which the definition below gives as proto-loader would.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

/** Full name of the certificate service. */
export const CERTIFICATE_SERVICE_NAME = 'mesh.v1.auth.MeshCertificateService';
const PACKAGE = 'mesh.v1.auth';

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
  const root = new protobuf.Root().loadSync(certificateProtoPath(), { keepCase: true });
  const request = root.lookupType(`${PACKAGE}.MeshCertificateRequest`);
  const response = root.lookupType(`${PACKAGE}.MeshCertificateResponse`);
  // NOTE: the conversions proto-loader makes with { keepCase, longs: Number, defaults, oneofs }.
  const toObject: protobuf.IConversionOptions = { longs: Number, defaults: true, oneofs: true };
  const serialize = (type: protobuf.Type) => (value: object): Buffer => Buffer.from(type.encode(type.fromObject(value as Record<string, unknown>)).finish());
  const deserialize = (type: protobuf.Type) => (bytes: Buffer): never => type.toObject(type.decode(bytes), toObject) as never;
  const service: grpc.ServiceDefinition = {
    CreateCertificate: {
      path: `/${CERTIFICATE_SERVICE_NAME}/CreateCertificate`,
      requestStream: false,
      responseStream: false,
      requestSerialize: serialize(request),
      requestDeserialize: deserialize(request),
      responseSerialize: serialize(response),
      responseDeserialize: deserialize(response),
      originalName: 'createCertificate',
    },
  };
  cached = grpc.makeGenericClientConstructor(service, 'MeshCertificateService');
  return cached;
}
