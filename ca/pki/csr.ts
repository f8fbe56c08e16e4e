// PKCS#10 certificate signing requests (RFC 2986): decode and verify on the server (the CA verifies on a signer
// thread), build on the client.
import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import {
  DerError, TAG, bitString, children, contextTag, decodeOid, fromPemAll, oid, readOne, sequence, set, smallInteger, toPem,
  type DerElement,
} from './der.js';
import { encodeName, extension, signatureAlgorithmFor, subjectAltNameValue } from './certificate-builder.js';
import { OID, SIGNATURE_HASH } from './oids.js';
import { parseSubjectAltNames, type SubjectAltNames } from './certificate-info.js';
import { checkKeyStrength, KeyStrengthError } from './key-strength.js';

/**
 * Why a CSR was refused: the request could not be decoded, its signature does not verify, it uses an algorithm
 * the CA does not support, or its key is weaker than the CA's floor (`key-strength.ts`).
 */
export class CsrError extends Error {
  override readonly name = 'CsrError';
  constructor(
    readonly reason: 'malformed' | 'bad-signature' | 'unsupported' | 'weak-key',
    message: string,
  ) {
    super(message);
  }
}

/** What proves the requester holds the CSR's key: the signed CertificationRequestInfo and its signature. */
export interface CsrProof {
  readonly hash: 'sha256' | 'sha384' | 'sha512';
  /** DER CertificationRequestInfo (the signed bytes). */
  readonly signedData: Buffer;
  readonly signature: Buffer;
}

/** A decoded CSR; its signature is checked separately (`verifyCsrProof`), off the event loop in the CA. */
export interface DecodedCsr {
  /** DER SubjectPublicKeyInfo, copied as-is into the issued certificate. */
  readonly subjectPublicKeyInfo: Buffer;
  /** Subject alternative names from the extensionRequest attribute (empty lists when absent). */
  readonly subjectAltNames: SubjectAltNames;
  readonly proof: CsrProof;
}

function extensionRequestSans(attributes: DerElement): SubjectAltNames {
  for (const attribute of children(attributes, 'CSR attributes')) {
    const [type, values] = children(attribute, 'CSR attribute');
    if (!type || !values) throw new DerError('CSR attribute: expected type and values');
    if (decodeOid(type, 'CSR attribute type') !== OID.extensionRequest) continue;
    const extensions = children(values, 'extensionRequest values')[0];
    if (!extensions) throw new DerError('extensionRequest: no Extensions value');
    for (const ext of children(extensions, 'extensionRequest Extensions')) {
      const parts = children(ext, 'Extension');
      // NOTE: an empty Extension (fuzz finding) is malformed DER, not a crash.
      if (parts.length < 2) throw new DerError('Extension: expected an id and a value');
      if (decodeOid(parts[0]!, 'Extension id') !== OID.subjectAltName) continue;
      const value = parts[parts.length - 1]!;
      if (value.tag !== TAG.OCTET_STRING) throw new DerError('subjectAltName: expected an OCTET STRING value');
      return parseSubjectAltNames(value.content);
    }
  }
  return { uris: [], dns: [], ips: [], emails: [], other: 0 };
}

/**
 * Decodes a PEM CSR without checking its signature. Throws `CsrError` with reason `malformed` (not a single
 * PEM CERTIFICATE REQUEST, bad DER), `unsupported` (unknown signature or key algorithm) or `weak-key` (an RSA
 * key below 2048 bits or an EC curve below P-256; the message names the size and the minimum).
 */
export function decodeCsrPem(pem: string): DecodedCsr {
  const blocks = fromPemAll(pem, 'CERTIFICATE REQUEST');
  if (blocks.length !== 1) throw new CsrError('malformed', `csr: expected exactly one PEM "CERTIFICATE REQUEST" block, found ${blocks.length}`);
  try {
    const request = readOne(blocks[0]!, 'CertificationRequest', TAG.SEQUENCE);
    const [info, algorithm, signature] = children(request, 'CertificationRequest');
    if (!info || !algorithm || !signature || signature.tag !== TAG.BIT_STRING) throw new DerError('CertificationRequest: expected info, algorithm, signature');
    const [version, _subject, spki, attributes] = children(info, 'CertificationRequestInfo');
    if (!version || !spki || spki.tag !== TAG.SEQUENCE) throw new DerError('CertificationRequestInfo: expected version, subject, subjectPKInfo');
    const algorithmOid = decodeOid(children(algorithm, 'signatureAlgorithm')[0], 'signatureAlgorithm');
    const hash = SIGNATURE_HASH.get(algorithmOid);
    if (!hash) throw new CsrError('unsupported', `csr: unsupported signature algorithm ${algorithmOid} (use RSA or ECDSA with SHA-2)`);
    try {
      checkKeyStrength(spki.raw);
    } catch (err) {
      if (err instanceof KeyStrengthError) throw new CsrError(err.reason, `csr: ${err.message}`);
      throw err;
    }
    return {
      subjectPublicKeyInfo: Buffer.from(spki.raw),
      subjectAltNames: attributes && attributes.tag === 0xa0 ? extensionRequestSans(attributes) : { uris: [], dns: [], ips: [], emails: [], other: 0 },
      proof: { hash, signedData: Buffer.from(info.raw), signature: Buffer.from(signature.content.subarray(1)) },
    };
  } catch (err) {
    if (err instanceof DerError) throw new CsrError('malformed', `csr: ${err.message}`);
    throw err;
  }
}

/**
 * Checks a CSR's self-signature with node:crypto (synchronously: the CA calls it on a signer thread).
 * Throws `CsrError` with reason `malformed` (the key is unusable) or `bad-signature`.
 */
export function verifyCsrProof(subjectPublicKeyInfo: Buffer, proof: CsrProof): void {
  let ok: boolean;
  try {
    ok = verify(proof.hash, proof.signedData, { key: subjectPublicKeyInfo, format: 'der', type: 'spki' }, proof.signature);
  } catch (err) {
    throw new CsrError('malformed', `csr: subjectPKInfo is not a usable public key (${(err as Error).message})`);
  }
  if (!ok) throw new CsrError('bad-signature', 'csr: signature does not verify with the public key it carries');
}

/** What the client puts in a CSR. */
export interface CsrRequest {
  /** URI SANs, e.g. the SPIFFE identity. */
  readonly uris: readonly string[];
  readonly dns?: readonly string[];
  /** Subject organization; Istio's agent leaves the subject empty by default. */
  readonly organization?: string;
}

/** Builds a PEM CSR for `privateKey` (RSA or EC P-256/P-384) with a subjectAltName extension request. */
export function createCsrPem(privateKey: KeyObject, request: CsrRequest): string {
  const algorithm = signatureAlgorithmFor(privateKey);
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const sanCritical = request.organization === undefined;
  const extensionRequest = sequence(
    oid(OID.extensionRequest),
    set(sequence(extension(OID.subjectAltName, sanCritical, subjectAltNameValue({ uris: request.uris, dns: request.dns ?? [] })))),
  );
  const info = sequence(
    smallInteger(0),
    encodeName(request.organization === undefined ? [] : [{ type: 'O', value: request.organization }]),
    spki,
    contextTag(0, true, extensionRequest),
  );
  const signature = sign(algorithm.hash, info, privateKey);
  return toPem(sequence(info, algorithm.algorithmIdentifier, bitString(signature)), 'CERTIFICATE REQUEST');
}
