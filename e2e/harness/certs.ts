import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface CertKeyPair {
  readonly certPem: string;
  readonly keyPem: string;
}

/** Everything the test control plane needs to serve TLS, authenticate the admin and sign tokens. */
export interface ClusterPki {
  /** The CA that signed both the serving and the client certificates. */
  readonly ca: CertKeyPair;
  /** kube-apiserver serving certificate for 127.0.0.1, ::1, localhost and kubernetes.default.svc. */
  readonly serving: CertKeyPair;
  /** Admin client certificate: CN `mesh-e2e-admin`, O `system:masters`. */
  readonly admin: CertKeyPair;
  /** RSA key pair that signs and verifies service-account tokens. */
  readonly serviceAccount: { readonly publicKeyPem: string; readonly privateKeyPem: string };
}

const DAY_MS = 24 * 60 * 60 * 1000;

function newRsaKey(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

interface CertRequest {
  readonly commonName: string;
  readonly organization?: string;
  readonly isCa: boolean;
  readonly usage: 'ca' | 'server' | 'client';
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
}

function issue(request: CertRequest, issuer?: { cert: forge.pki.Certificate; keyPem: string }): CertKeyPair {
  const key = newRsaKey();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(key.publicKeyPem);
  // A positive serial: a leading 0x01 byte keeps the high bit clear.
  cert.serialNumber = '01' + randomBytes(15).toString('hex');
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 60 * 60 * 1000);
  cert.validity.notAfter = new Date(now + 7 * DAY_MS);
  const subject: forge.pki.CertificateField[] = [{ name: 'commonName', value: request.commonName }];
  if (request.organization !== undefined) {
    subject.push({ name: 'organizationName', value: request.organization });
  }
  cert.setSubject(subject);
  cert.setIssuer(issuer ? issuer.cert.subject.attributes : subject);
  const extensions: object[] = [
    { name: 'basicConstraints', cA: request.isCa, critical: true },
    request.isCa
      ? { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true }
      : { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ];
  if (request.usage === 'server') extensions.push({ name: 'extKeyUsage', serverAuth: true });
  if (request.usage === 'client') extensions.push({ name: 'extKeyUsage', clientAuth: true });
  const altNames = [
    ...(request.dnsNames ?? []).map((value) => ({ type: 2, value })),
    ...(request.ipAddresses ?? []).map((ip) => ({ type: 7, ip })),
  ];
  if (altNames.length > 0) extensions.push({ name: 'subjectAltName', altNames });
  cert.setExtensions(extensions);
  const signingKey = forge.pki.privateKeyFromPem(issuer ? issuer.keyPem : key.privateKeyPem);
  cert.sign(signingKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: key.privateKeyPem };
}

/**
 * Generates a fresh PKI for one test control plane: a CA, a serving certificate for the loopback
 * addresses, an admin client certificate in `system:masters`, and a service-account signing key.
 * Certificates are valid from one hour ago for seven days.
 */
export function generateClusterPki(): ClusterPki {
  const ca = issue({ commonName: 'mesh-e2e-ca', isCa: true, usage: 'ca' });
  const issuer = { cert: forge.pki.certificateFromPem(ca.certPem), keyPem: ca.keyPem };
  const serving = issue(
    {
      commonName: 'kube-apiserver',
      isCa: false,
      usage: 'server',
      dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'],
      ipAddresses: ['127.0.0.1', '::1'],
    },
    issuer,
  );
  const admin = issue(
    { commonName: 'mesh-e2e-admin', organization: 'system:masters', isCa: false, usage: 'client' },
    issuer,
  );
  return { ca, serving, admin, serviceAccount: newRsaKey() };
}
