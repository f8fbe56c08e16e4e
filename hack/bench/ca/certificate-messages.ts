// The certificate service's messages as bench:ca's own callers and floor server write and read them, with
// protobufjs straight from ca/proto/ca.proto, and the gRPC frame around one message.
import protobuf from 'protobufjs';
import { certificateProtoPath } from '../../../ca/server/certificate-proto.js';

interface CertificateMessages {
  readonly request: protobuf.Type;
  readonly response: protobuf.Type;
}

let messages: CertificateMessages | undefined;

function certificateMessages(): CertificateMessages {
  if (!messages) {
    const root = protobuf.loadSync(certificateProtoPath());
    messages = { request: root.lookupType('mesh.v1.auth.MeshCertificateRequest'), response: root.lookupType('mesh.v1.auth.MeshCertificateResponse') };
  }
  return messages;
}

/** A MeshCertificateRequest for `csrPem` with the default lifetime, protobuf-encoded. */
export function encodeCertificateRequest(csrPem: string): Uint8Array {
  return certificateMessages().request.encode({ csr: csrPem, validityDuration: 0 }).finish();
}

/** A MeshCertificateResponse carrying `chain` (leaf first), protobuf-encoded. */
export function encodeCertificateResponse(chain: readonly string[]): Uint8Array {
  return certificateMessages().response.encode({ certChain: chain }).finish();
}

/** The chain of a protobuf-encoded MeshCertificateResponse. */
export function decodeCertificateResponse(bytes: Uint8Array): string[] {
  return (certificateMessages().response.decode(bytes) as unknown as { certChain: string[] }).certChain;
}

/** A gRPC length-prefixed message (uncompressed). */
export function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}
