// Body of a CA signer thread: for each leaf request, check the CSR's proof of possession (when given), build
// the certificate (leaf-profile.ts), sign it synchronously and answer its PEM. Keeps DER work, key parsing
// and RSA off meshd's event loop.
import { parentPort } from 'node:worker_threads';
import { signCertificateSync } from '../pki/certificate-builder.js';
import { CsrError, verifyCsrProof } from '../pki/csr.js';
import { toPem } from '../pki/der.js';
import { leafTemplate, type LeafRequest } from './leaf-profile.js';

/** A request as it crosses the thread boundary (Buffers arrive as Uint8Arrays). */
export interface SignerJobMessage {
  readonly id: number;
  readonly request: LeafRequest;
}

/** The answer: the leaf's PEM, or why there is none. */
export type SignerReplyMessage =
  | { readonly id: number; readonly pem: string }
  | { readonly id: number; readonly error: string; readonly csrReason?: CsrError['reason'] };

// Node 24's key checks (isKeyObject, isCryptoKey) throw and catch a TypeError for every key given as bytes;
// capturing those stacks cost ~8% of this thread's time. Nothing here needs stacks: errors travel as text.
Error.stackTraceLimit = 0;

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function requestOf(r: LeafRequest): LeafRequest {
  return {
    ...r,
    issuer: { ...r.issuer, name: asBuffer(r.issuer.name), keyId: asBuffer(r.issuer.keyId) },
    subjectPublicKeyInfo: asBuffer(r.subjectPublicKeyInfo),
    proof: r.proof && { hash: r.proof.hash, signedData: asBuffer(r.proof.signedData), signature: asBuffer(r.proof.signature) },
  };
}

function run(job: SignerJobMessage): SignerReplyMessage {
  try {
    const request = requestOf(job.request);
    if (request.proof) verifyCsrProof(request.subjectPublicKeyInfo, request.proof);
    return { id: job.id, pem: toPem(signCertificateSync(leafTemplate(request), request.issuer.key), 'CERTIFICATE') };
  } catch (err) {
    return { id: job.id, error: (err as Error).message, csrReason: err instanceof CsrError ? err.reason : undefined };
  }
}

parentPort?.on('message', (job: SignerJobMessage) => parentPort!.postMessage(run(job)));
