// Body of a CA signer thread: for each job, check the CSR's proof of possession (when given), then encode
// and sign the certificate synchronously. Keeps RSA work and key parsing off meshd's event loop.
import type { KeyObject } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { signCertificateSync, type CertificateTemplate } from '../pki/certificate-builder.js';
import { CsrError, verifyCsrProof, type CsrProof } from '../pki/csr.js';

/** A job as it crosses the thread boundary (Buffers arrive as Uint8Arrays). */
export interface SignerJobMessage {
  readonly id: number;
  readonly template: CertificateTemplate;
  readonly key: KeyObject;
  readonly proof?: CsrProof;
}

/** The answer: the certificate's DER, or why there is none. */
export type SignerReplyMessage =
  | { readonly id: number; readonly der: Uint8Array }
  | { readonly id: number; readonly error: string; readonly csrReason?: CsrError['reason'] };

// Node 24's key checks (isKeyObject, isCryptoKey) throw and catch a TypeError for every key given as bytes;
// capturing those stacks cost ~8% of this thread's time. Nothing here needs stacks: errors travel as text.
Error.stackTraceLimit = 0;

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function templateOf(t: CertificateTemplate): CertificateTemplate {
  return {
    serial: asBuffer(t.serial),
    issuer: asBuffer(t.issuer),
    subject: asBuffer(t.subject),
    notBefore: t.notBefore,
    notAfter: t.notAfter,
    subjectPublicKeyInfo: asBuffer(t.subjectPublicKeyInfo),
    extensions: t.extensions.map(asBuffer),
  };
}

function run(job: SignerJobMessage): SignerReplyMessage {
  try {
    const template = templateOf(job.template);
    const { proof } = job;
    if (proof) verifyCsrProof(template.subjectPublicKeyInfo, { hash: proof.hash, signedData: asBuffer(proof.signedData), signature: asBuffer(proof.signature) });
    return { id: job.id, der: signCertificateSync(template, job.key) };
  } catch (err) {
    return { id: job.id, error: (err as Error).message, csrReason: err instanceof CsrError ? err.reason : undefined };
  }
}

parentPort?.on('message', (job: SignerJobMessage) => parentPort!.postMessage(run(job)));
