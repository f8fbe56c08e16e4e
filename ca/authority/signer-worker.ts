// Body of a CA signer thread: keeps the issuers it is sent; for each sign job, checks the CSR's proof of
// possession (when given), builds the certificate (leaf-profile.ts), signs it synchronously and answers its
// PEM. Keeps DER work, key parsing and RSA off meshd's event loop.
import { parentPort } from 'node:worker_threads';
import { signCertificateSync } from '../pki/certificate-builder.js';
import { CsrError, verifyCsrProof } from '../pki/csr.js';
import { toPem } from '../pki/der.js';
import { leafTemplate, type LeafIssuer } from './leaf-profile.js';
import { issuerOf, leafRequestOf, type SignMessage, type SignerJobMessage, type SignerReplyMessage } from './signer-protocol.js';

// Node 24's key checks (isKeyObject, isCryptoKey) throw and catch a TypeError for every key given as bytes;
// capturing those stacks cost ~8% of this thread's time. Nothing here needs stacks: errors travel as text.
Error.stackTraceLimit = 0;

const issuers = new Map<number, LeafIssuer>();

function sign(job: SignMessage): SignerReplyMessage {
  try {
    const issuer = issuers.get(job.issuer);
    if (!issuer) throw new Error(`signer thread: unknown issuer ${job.issuer}`);
    const request = leafRequestOf(job, issuer);
    if (request.proof) verifyCsrProof(request.subjectPublicKeyInfo, request.proof);
    return { id: job.id, pem: toPem(signCertificateSync(leafTemplate(request), issuer.key), 'CERTIFICATE') };
  } catch (err) {
    return { id: job.id, error: (err as Error).message, csrReason: err instanceof CsrError ? err.reason : undefined };
  }
}

parentPort?.on('message', (message: SignerJobMessage) => {
  if (message.kind === 'sign') {
    parentPort!.postMessage(sign(message));
    return;
  }
  if (message.forget !== undefined) issuers.delete(message.forget);
  issuers.set(message.id, issuerOf(message));
});
