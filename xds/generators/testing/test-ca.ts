/**
 * A throwaway CA for mTLS tests: keys from node:crypto, certificates built and signed with
 * node-forge, written as the file_watcher certificate provider expects
 * (`cert-chain.pem`, `key.pem`, `root-cert.pem`).
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';

interface KeyPair {
  readonly privatePem: string;
  readonly publicPem: string;
}

function keyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privatePem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

let serial = 1;

function certificate(
  subjectCn: string,
  keys: KeyPair,
  issuer: { cert: forge.pki.Certificate; key: forge.pki.PrivateKey } | undefined,
  extensions: object[],
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicPem);
  cert.serialNumber = (serial++).toString(16).padStart(2, '0');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  cert.setSubject([{ name: 'commonName', value: subjectCn }]);
  cert.setIssuer(issuer ? issuer.cert.subject.attributes : [{ name: 'commonName', value: subjectCn }]);
  cert.setExtensions(extensions);
  cert.sign((issuer?.key ?? forge.pki.privateKeyFromPem(keys.privatePem)) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return cert;
}

/** A test root that issues SPIFFE workload certificates. */
export class TestCa {
  readonly #keys = keyPair();
  readonly #cert = certificate('mesh test root', this.#keys, undefined, [
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);

  /** The root certificate in PEM. */
  get rootPem(): string {
    return forge.pki.certificateToPem(this.#cert);
  }

  /**
   * Writes `cert-chain.pem`, `key.pem` and `root-cert.pem` for a workload with the SPIFFE ID `spiffeId`
   * into `dir` (created).
   */
  issue(dir: string, spiffeId: string): void {
    const keys = keyPair();
    const cert = certificate(spiffeId, keys, { cert: this.#cert, key: forge.pki.privateKeyFromPem(this.#keys.privatePem) }, [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 6, value: spiffeId }] },
    ]);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'cert-chain.pem'), forge.pki.certificateToPem(cert));
    writeFileSync(join(dir, 'key.pem'), keys.privatePem);
    writeFileSync(join(dir, 'root-cert.pem'), this.rootPem);
  }
}
