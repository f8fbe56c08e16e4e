// The certificates meshd's CA issues, like Istio's: empty subject, critical SAN (SPIFFE URIs for workloads,
// DNS names for meshd's own serving certificate), keyUsage digitalSignature and keyEncipherment, extKeyUsage
// serverAuth and clientAuth, CA:FALSE, a random 128-bit serial, and the issuer's key id as
// authorityKeyIdentifier. Built on the signer threads from a small request.
import type { KeyObject } from 'node:crypto';
import {
  authorityKeyIdentifierValue, basicConstraintsValue, encodeName, extKeyUsageValue, extension, keyUsageValue,
  randomSerial, subjectAltNameValue, type CertificateTemplate,
} from '../pki/certificate-builder.js';
import type { CsrProof } from '../pki/csr.js';
import { OID } from '../pki/oids.js';

/** The signing side of a leaf: the issuer's subject (DER Name), key id and private key. */
export interface LeafIssuer {
  readonly name: Buffer;
  readonly keyId: Buffer;
  readonly key: KeyObject;
}

/** One leaf to issue. With `proof`, the CSR's signature over `subjectPublicKeyInfo` is checked first. */
export interface LeafRequest {
  readonly issuer: LeafIssuer;
  readonly subjectPublicKeyInfo: Buffer;
  readonly sans: { readonly uris?: readonly string[]; readonly dns?: readonly string[] };
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly proof?: CsrProof;
}

const EMPTY_NAME = encodeName([]);
const KEY_USAGE = extension(OID.keyUsage, true, keyUsageValue(['digitalSignature', 'keyEncipherment']));
const EXT_KEY_USAGE = extension(OID.extKeyUsage, false, extKeyUsageValue([OID.serverAuth, OID.clientAuth]));
const BASIC_CONSTRAINTS = extension(OID.basicConstraints, true, basicConstraintsValue(false));

/** The template of the leaf `request` asks for. */
export function leafTemplate(request: LeafRequest): CertificateTemplate {
  return {
    serial: randomSerial(),
    issuer: request.issuer.name,
    subject: EMPTY_NAME,
    notBefore: request.notBefore,
    notAfter: request.notAfter,
    subjectPublicKeyInfo: request.subjectPublicKeyInfo,
    extensions: [
      KEY_USAGE,
      EXT_KEY_USAGE,
      BASIC_CONSTRAINTS,
      extension(OID.authorityKeyIdentifier, false, authorityKeyIdentifierValue(request.issuer.keyId)),
      extension(OID.subjectAltName, true, subjectAltNameValue(request.sans)),
    ],
  };
}
