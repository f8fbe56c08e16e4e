// Reads the parts of an X.509 certificate the CA needs that node:crypto's X509Certificate does not expose
// as bytes: the raw subject Name (to become an issuer), the key identifier, and typed subjectAltNames.
import { createHash } from 'node:crypto';
import { DerError, TAG, children, decodeOid, readOne, type DerElement } from './der.js';
import { OID } from './oids.js';

/** Subject alternative names by kind; `other` counts names of kinds the CA never issues. */
export interface SubjectAltNames {
  readonly uris: readonly string[];
  readonly dns: readonly string[];
  readonly ips: readonly string[];
  readonly emails: readonly string[];
  readonly other: number;
}

function formatIp(bytes: Buffer): string {
  if (bytes.length === 4) return [...bytes].join('.');
  const groups: string[] = [];
  for (let i = 0; i + 1 < bytes.length; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return groups.join(':');
}

/** Decodes a subjectAltName extension value (GeneralNames). Throws `DerError` when malformed. */
export function parseSubjectAltNames(value: Buffer): SubjectAltNames {
  const names = readOne(value, 'subjectAltName', TAG.SEQUENCE);
  const uris: string[] = [];
  const dns: string[] = [];
  const ips: string[] = [];
  const emails: string[] = [];
  let other = 0;
  for (const name of children(names, 'subjectAltName')) {
    switch (name.tag) {
      case 0x86: uris.push(name.content.toString('latin1')); break;
      case 0x82: dns.push(name.content.toString('latin1')); break;
      case 0x87: ips.push(formatIp(name.content)); break;
      case 0x81: emails.push(name.content.toString('latin1')); break;
      default: other++;
    }
  }
  return { uris, dns, ips, emails, other };
}

/** The pieces of a certificate the CA reads. */
export interface CertificateInfo {
  /** DER of the subject Name, byte for byte. */
  readonly subject: Buffer;
  /** subjectKeyIdentifier when present, else SHA-1 of the subjectPublicKey bits (RFC 5280 method 1). */
  readonly keyIdentifier: Buffer;
  /** subjectAltName contents (empty lists when absent). */
  readonly subjectAltNames: SubjectAltNames;
}

function extensionsOf(tbsParts: DerElement[]): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const wrapper = tbsParts.find((p) => p.tag === 0xa3);
  if (!wrapper) return out;
  const list = children(wrapper, 'extensions')[0];
  if (!list) return out;
  for (const ext of children(list, 'extensions')) {
    const parts = children(ext, 'Extension');
    out.set(decodeOid(parts[0], 'Extension id'), parts[parts.length - 1]!.content);
  }
  return out;
}

/** Decodes a DER certificate's subject, key identifier and SANs. Throws `DerError` when malformed. */
export function readCertificateInfo(der: Buffer): CertificateInfo {
  const cert = readOne(der, 'Certificate', TAG.SEQUENCE);
  const tbs = children(cert, 'Certificate')[0];
  if (!tbs) throw new DerError('Certificate: missing TBSCertificate');
  const parts = children(tbs, 'TBSCertificate');
  const offset = parts[0]?.tag === 0xa0 ? 1 : 0; // explicit version is optional (v1)
  const subject = parts[offset + 4];
  const spki = parts[offset + 5];
  if (!subject || !spki) throw new DerError('TBSCertificate: missing subject or subjectPublicKeyInfo');
  const extensions = extensionsOf(parts.slice(offset + 6));
  const ski = extensions.get(OID.subjectKeyIdentifier);
  let keyIdentifier: Buffer;
  if (ski) {
    keyIdentifier = Buffer.from(readOne(ski, 'subjectKeyIdentifier', TAG.OCTET_STRING).content);
  } else {
    const bits = children(spki, 'subjectPublicKeyInfo')[1];
    if (!bits) throw new DerError('subjectPublicKeyInfo: missing key bits');
    keyIdentifier = createHash('sha1').update(bits.content.subarray(1)).digest();
  }
  const san = extensions.get(OID.subjectAltName);
  return {
    subject: Buffer.from(subject.raw),
    keyIdentifier,
    subjectAltNames: san ? parseSubjectAltNames(san) : { uris: [], dns: [], ips: [], emails: [], other: 0 },
  };
}
