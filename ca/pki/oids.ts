// Object identifiers used by the CA, as dotted text (RFC 5280, RFC 2986, RFC 3279, RFC 5758).

/** The OIDs the CA reads and writes. */
export const OID = {
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha256WithRSAEncryption: '1.2.840.113549.1.1.11',
  sha384WithRSAEncryption: '1.2.840.113549.1.1.12',
  sha512WithRSAEncryption: '1.2.840.113549.1.1.13',
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
  ecdsaWithSha512: '1.2.840.10045.4.3.4',
  extensionRequest: '1.2.840.113549.1.9.14',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** Signature algorithm OID -> the node:crypto digest name used to verify it. */
export const SIGNATURE_HASH: ReadonlyMap<string, 'sha256' | 'sha384' | 'sha512'> = new Map([
  [OID.sha256WithRSAEncryption, 'sha256'],
  [OID.sha384WithRSAEncryption, 'sha384'],
  [OID.sha512WithRSAEncryption, 'sha512'],
  [OID.ecdsaWithSha256, 'sha256'],
  [OID.ecdsaWithSha384, 'sha384'],
  [OID.ecdsaWithSha512, 'sha512'],
] as const);
