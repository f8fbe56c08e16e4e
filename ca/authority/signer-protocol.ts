// What crosses between the CA and its signer threads. A thread is sent each issuer (private key included)
// once and keeps the few newest; a sign job names its issuer by id. Byte fields travel as latin1 strings:
// strings clone without allocating, while every cloned typed array costs a new ArrayBuffer with a backing
// store of its own that only a full GC frees (measured with --trace-gc-nvp: ArrayBuffer sweeping was ~12 ms
// of a 37 ms mark-compact pause at 1,500 certificates/s).
import type { KeyObject } from 'node:crypto';
import type { CsrError, CsrProof } from '../pki/csr.js';
import type { LeafIssuer, LeafRequest } from './leaf-profile.js';

/** Makes issuer `id` known to the thread; `forget` names one it may drop. */
export interface IssuerMessage {
  readonly kind: 'issuer';
  readonly id: number;
  readonly name: string;
  readonly keyId: string;
  readonly key: KeyObject;
  readonly forget?: number;
}

/** One leaf to sign with a known issuer. */
export interface SignMessage {
  readonly kind: 'sign';
  readonly id: number;
  readonly issuer: number;
  readonly spki: string;
  readonly uris?: readonly string[];
  readonly dns?: readonly string[];
  readonly notBefore: number;
  readonly notAfter: number;
  readonly proof?: { readonly hash: CsrProof['hash']; readonly signedData: string; readonly signature: string };
}

export type SignerJobMessage = IssuerMessage | SignMessage;

/** The answer to a sign job: the leaf's PEM, or why there is none. */
export type SignerReplyMessage =
  | { readonly id: number; readonly pem: string }
  | { readonly id: number; readonly error: string; readonly csrReason?: CsrError['reason'] };

const text = (bytes: Buffer): string => bytes.toString('latin1');
const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');

export function issuerMessage(id: number, issuer: LeafIssuer, forget: number | undefined): IssuerMessage {
  return { kind: 'issuer', id, name: text(issuer.name), keyId: text(issuer.keyId), key: issuer.key, forget };
}

export function issuerOf(message: IssuerMessage): LeafIssuer {
  return { name: bytes(message.name), keyId: bytes(message.keyId), key: message.key };
}

export function signMessage(id: number, issuerId: number, request: LeafRequest): SignMessage {
  const { proof } = request;
  return {
    kind: 'sign',
    id,
    issuer: issuerId,
    spki: text(request.subjectPublicKeyInfo),
    uris: request.sans.uris,
    dns: request.sans.dns,
    notBefore: request.notBefore.getTime(),
    notAfter: request.notAfter.getTime(),
    proof: proof && { hash: proof.hash, signedData: text(proof.signedData), signature: text(proof.signature) },
  };
}

export function leafRequestOf(message: SignMessage, issuer: LeafIssuer): LeafRequest {
  const { proof } = message;
  return {
    issuer,
    subjectPublicKeyInfo: bytes(message.spki),
    sans: { uris: message.uris, dns: message.dns },
    notBefore: new Date(message.notBefore),
    notAfter: new Date(message.notAfter),
    proof: proof && { hash: proof.hash, signedData: bytes(proof.signedData), signature: bytes(proof.signature) },
  };
}
