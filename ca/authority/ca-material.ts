// The CA's key material as files (Istio's `cacerts` layout) and its validated, ready-to-sign form.
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { fromPemAll } from '../pki/der.js';
import { readCertificateInfo } from '../pki/certificate-info.js';

/** File names of a CA directory or secret, as Istio's plugged-in CA uses them. */
export const CA_FILES = {
  caCert: 'ca-cert.pem',
  caKey: 'ca-key.pem',
  certChain: 'cert-chain.pem',
  rootCert: 'root-cert.pem',
} as const;

/**
 * CA material as stored: PEM text of the four `cacerts` files.
 * `rootCertPem` may hold several roots (the active one first after a rotation; older ones stay trusted
 * until they expire). `certChainPem` holds the signing certificate's chain up to the root (may be empty
 * for a self-signed root).
 */
export interface StoredCaMaterial {
  readonly caCertPem: string;
  readonly caKeyPem: string;
  readonly certChainPem: string;
  readonly rootCertPem: string;
}

/** Thrown when CA material is unusable; the message names the file and what is wrong. */
export class CaMaterialError extends Error {
  override readonly name = 'CaMaterialError';
}

/** Validated signing state. Immutable: rotation swaps in a new one. */
export interface SigningAuthority {
  readonly signingKey: KeyObject;
  readonly signingCert: X509Certificate;
  /** DER subject of the signing certificate: the issuer of every leaf. */
  readonly issuerName: Buffer;
  /** Key identifier of the signing certificate: the leaves' authorityKeyIdentifier. */
  readonly issuerKeyId: Buffer;
  /** PEM certificates after the leaf in every issued chain: signing cert, intermediates..., active root. */
  readonly chainAfterLeaf: readonly string[];
  /** The active root (last of `chainAfterLeaf`). */
  readonly root: X509Certificate;
  /** Every trusted root: the active one first, then older unexpired ones. */
  readonly trustedRoots: readonly X509Certificate[];
  /** Earliest expiry over the signing certificate and intermediates. */
  readonly chainNotAfter: Date;
}

function certsOf(pem: string, file: string): X509Certificate[] {
  const ders = fromPemAll(pem, 'CERTIFICATE');
  try {
    return ders.map((der) => new X509Certificate(der));
  } catch (err) {
    throw new CaMaterialError(`${file}: not a valid PEM certificate (${(err as Error).message})`);
  }
}

function pemOf(cert: X509Certificate): string {
  return cert.toString();
}

/**
 * Validates stored material and builds the signing state: the key matches ca-cert.pem; each certificate of
 * the chain is signed by the next; the chain ends at a self-signed root of root-cert.pem.
 * Roots in root-cert.pem that already expired at `now` are dropped from the trust bundle.
 */
export function loadSigningAuthority(material: StoredCaMaterial, now: Date): SigningAuthority {
  const [signingCert, ...extraCaCerts] = certsOf(material.caCertPem, CA_FILES.caCert);
  if (!signingCert) throw new CaMaterialError(`${CA_FILES.caCert}: no PEM CERTIFICATE block`);
  if (extraCaCerts.length > 0) throw new CaMaterialError(`${CA_FILES.caCert}: expected one certificate, found ${extraCaCerts.length + 1}`);
  if (!signingCert.ca) throw new CaMaterialError(`${CA_FILES.caCert}: not a CA certificate (basicConstraints CA is false)`);
  let signingKey: KeyObject;
  try {
    signingKey = createPrivateKey(material.caKeyPem);
  } catch (err) {
    throw new CaMaterialError(`${CA_FILES.caKey}: not a valid PEM private key (${(err as Error).message})`);
  }
  if (!signingCert.checkPrivateKey(signingKey)) throw new CaMaterialError(`${CA_FILES.caKey}: does not match the public key of ${CA_FILES.caCert}`);
  const roots = certsOf(material.rootCertPem, CA_FILES.rootCert);
  if (roots.length === 0) throw new CaMaterialError(`${CA_FILES.rootCert}: no PEM CERTIFICATE block`);

  // Intermediates: cert-chain.pem minus the signing cert itself and any root.
  const isSame = (a: X509Certificate, b: X509Certificate): boolean => a.fingerprint256 === b.fingerprint256;
  const intermediates = certsOf(material.certChainPem, CA_FILES.certChain)
    .filter((c) => !isSame(c, signingCert) && !roots.some((r) => isSame(r, c)));
  const path = [signingCert, ...intermediates];
  const top = path[path.length - 1]!;
  const root = roots.find((r) => isSame(r, top)) ?? roots.find((r) => top.issuer === r.subject && top.verify(r.publicKey));
  if (!root) throw new CaMaterialError(`${CA_FILES.certChain}: the chain from ${CA_FILES.caCert} does not end at a root of ${CA_FILES.rootCert}`);
  for (let i = 0; i + 1 < path.length; i++) {
    if (!path[i]!.verify(path[i + 1]!.publicKey)) {
      throw new CaMaterialError(`${CA_FILES.certChain}: certificate ${i + 1} ("${path[i]!.subject}") is not signed by the next ("${path[i + 1]!.subject}")`);
    }
  }
  if (!root.verify(root.publicKey)) throw new CaMaterialError(`${CA_FILES.rootCert}: the root "${root.subject}" is not self-signed`);
  const chainCerts = isSame(top, root) ? path : [...path, root];
  const trustedRoots = [root, ...roots.filter((r) => !isSame(r, root) && new Date(r.validTo) > now)];
  const chainNotAfter = new Date(Math.min(...path.map((c) => new Date(c.validTo).getTime())));
  const info = readCertificateInfo(signingCert.raw);
  return {
    signingKey,
    signingCert,
    issuerName: info.subject,
    issuerKeyId: info.keyIdentifier,
    chainAfterLeaf: chainCerts.map(pemOf),
    root,
    trustedRoots,
    chainNotAfter,
  };
}
