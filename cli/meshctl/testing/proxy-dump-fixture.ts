/**
 * A sidecar config dump for proxy-config tests: what `meshctl x translate` builds for bookinfo's
 * productpage (examples/bookinfo-sidecar), plus a bootstrap and a secrets section with a real workload
 * certificate (SPIFFE URI SAN) and root, and a private key whose bytes must never be shown.
 */
import { generateKeyPairSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import forge from 'node-forge';
import { bufferIo, runCli } from '../../framework/index.js';
import { meshctlCommand } from '../meshctl-command.js';

/** Bytes standing in for a private key in the dump; no output may contain them. */
export const FIXTURE_KEY_BYTES = Buffer.from('PRIVATE-KEY-MATERIAL-xyz').toString('base64');

/** The fixture and facts about its certificate. */
export interface ProxyDumpFixture {
  readonly dump: { configs: Record<string, unknown>[] };
  readonly serialHex: string;
}

function selfSigned(serialHex: string, uri: string): string {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = serialHex;
  cert.validity.notBefore = new Date(Date.UTC(2026, 0, 1));
  cert.validity.notAfter = new Date(Date.UTC(2036, 0, 1));
  cert.setSubject([{ name: 'organizationName', value: 'cluster.local' }]);
  cert.setIssuer([{ name: 'organizationName', value: 'cluster.local' }]);
  cert.setExtensions([{ name: 'subjectAltName', altNames: [{ type: 6, value: uri }] }]);
  cert.sign(forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

/** Builds the fixture by running `meshctl x translate` in-process. */
export async function proxyDumpFixture(): Promise<ProxyDumpFixture> {
  const examples = fileURLToPath(new URL('../../../../examples/bookinfo-sidecar', import.meta.url));
  const io = bufferIo({ TERM: 'dumb' });
  const code = await runCli(meshctlCommand(), ['x', 'translate', '-f', examples, '--proxy', 'default/productpage-v1', '-o', 'json'], io);
  if (code !== 0) throw new Error(`translate failed (${code}): ${io.err()}`);
  const dump = JSON.parse(io.out()) as { configs: Record<string, unknown>[] };
  const serialHex = '7a3f01c2';
  const pem = selfSigned(serialHex, 'spiffe://cluster.local/ns/default/sa/bookinfo-productpage');
  const b64 = Buffer.from(pem).toString('base64');
  dump.configs.unshift({
    '@type': 'type.googleapis.com/envoy.admin.v3.BootstrapConfigDump',
    bootstrap: { node: { id: 'sidecar~10.0.0.1~productpage-v1.default~default.svc.cluster.local', cluster: 'productpage.default' }, admin: { address: { socket_address: { address: '127.0.0.1', port_value: 15000 } } } },
  });
  dump.configs.push({
    '@type': 'type.googleapis.com/envoy.admin.v3.SecretsConfigDump',
    dynamic_active_secrets: [
      { name: 'default', version_info: '2026-11-25T10:00:00Z', last_updated: '2026-11-25T10:00:00Z', secret: { '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret', name: 'default', tls_certificate: { certificate_chain: { inline_bytes: b64 }, private_key: { inline_bytes: FIXTURE_KEY_BYTES } } } },
      { name: 'ROOTCA', version_info: '2026-11-25T10:00:00Z', last_updated: '2026-11-25T10:00:00Z', secret: { '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret', name: 'ROOTCA', validation_context: { trusted_ca: { inline_bytes: b64 } } } },
    ],
  });
  return { dump, serialHex };
}
