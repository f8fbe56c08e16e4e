// Real parts: meshd's CA over gRPC/TLS (agent/testing/test-mesh-ca.ts), the agent's SDS server on a
// Unix socket, and a gRPC SDS client speaking the proxy's side of the protocol.
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createMetrics, ManualClock } from '../../core/index.js';
import { openSdsStream, type SdsStream } from '../testing/sds-client.js';
import { waitFor } from '../testing/stand-in-proxy-binary.js';
import { startTestMeshCa, type TestMeshCa } from '../testing/test-mesh-ca.js';
import { CaCertificateProvider } from './ca-certificate-provider.js';
import { FileSecrets } from './file-secrets.js';
import { SdsServer } from './sds-server.js';
import { ROTATION_RECHECK_MS, SecretCache } from './secret-cache.js';

const logger = pino({ level: process.env['TEST_LOG'] ?? 'silent' });
const ID = 'spiffe://cluster.local/ns/shop/sa/cart';
const pem = (secret: Record<string, unknown>, ...path: string[]): string => {
  let v: unknown = secret;
  for (const k of path) v = (v as Record<string, unknown>)[k];
  return Buffer.from(v as string, 'base64').toString();
};

describe('SDS server with certificates from meshd CA', () => {
  let ca: TestMeshCa;
  let dir: string;
  let cache: SecretCache | undefined;
  let sds: SdsServer | undefined;
  const streams: SdsStream[] = [];
  before(async () => (ca = await startTestMeshCa()));
  after(async () => ca.close());
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sds-'))));
  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    await sds?.close();
    cache?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function provider(token: () => string): CaCertificateProvider {
    return new CaCertificateProvider({
      client: { address: ca.address, rootCertPem: ca.rootCertPem, serverName: ca.serverName, token },
      identity: ID,
      ttlMs: 3600_000,
      key: { algorithm: 'ECDSA', curve: 'P256', pkcs8: false },
    });
  }

  it('given a valid token should serve default and ROOTCA, and push a new certificate at the grace period', async () => {
    const clock = new ManualClock(new Date());
    const metrics = createMetrics('pilot-agent', { processMetrics: false });
    const token = ca.token('shop', 'cart');
    cache = new SecretCache({ provider: provider(() => token), gracePeriodRatio: 0.5, logger, clock, metrics });
    sds = await SdsServer.start(join(dir, 'sds', 'socket'), cache, logger);
    const certs = openSdsStream(sds.socketPath);
    const roots = openSdsStream(sds.socketPath);
    streams.push(certs, roots);
    certs.request(['default']);
    roots.request(['ROOTCA']);
    await waitFor(() => certs.responses.length === 1 && roots.responses.length === 1, 'the first SDS responses');

    const first = certs.responses[0]!;
    const leaf = new X509Certificate(pem(first.secrets['default']!, 'tlsCertificate', 'certificateChain', 'inlineBytes'));
    const key = createPrivateKey(pem(first.secrets['default']!, 'tlsCertificate', 'privateKey', 'inlineBytes'));
    const root = new X509Certificate(pem(roots.responses[0]!.secrets['ROOTCA']!, 'validationContext', 'trustedCa', 'inlineBytes'));
    assert.equal(leaf.subjectAltName, `URI:${ID}`);
    assert.ok(leaf.checkPrivateKey(key), 'the key matches the certificate');
    assert.ok(leaf.verify(root.publicKey), 'the leaf chains to ROOTCA');
    assert.equal(root.fingerprint256, new X509Certificate(ca.rootCertPem).fingerprint256);
    const lifetimeMs = Date.parse(leaf.validTo) - Date.parse(leaf.validFrom);
    assert.match(await metrics.text(), /^cert_expiry_seconds\{resource_name="default"\} \d+/m);

    // ACK: nothing more is sent.
    certs.request(['default'], first);
    // Rotation half-way through the lifetime (SECRET_GRACE_PERIOD_RATIO 0.5), checked at least each minute.
    const due = Date.parse(leaf.validTo) - lifetimeMs * 0.5 - clock.wallNow();
    assert.ok(clock.timersDueIn()[0]! <= ROTATION_RECHECK_MS, `next check in ${clock.timersDueIn()[0]}ms`);
    await clock.advance(due - 2000);
    assert.equal(certs.responses.length, 1, 'not rotated before the grace period');
    await clock.advance(2000);
    await waitFor(() => certs.responses.length === 2, 'the rotated certificate pushed');
    const second = new X509Certificate(pem(certs.responses[1]!.secrets['default']!, 'tlsCertificate', 'certificateChain', 'inlineBytes'));
    assert.notEqual(second.serialNumber, leaf.serialNumber);
    assert.notEqual(certs.responses[1]!.nonce, first.nonce);
    assert.equal(cache.issued, 2);
  });

  it('given a token the CA refuses should keep retrying with backoff and serve nothing', async () => {
    const clock = new ManualClock(new Date());
    cache = new SecretCache({ provider: provider(() => 'not-a-token'), gracePeriodRatio: 0.5, logger, clock, retry: { initialMs: 1000, maxMs: 4000 } });
    sds = await SdsServer.start(join(dir, 'socket'), cache, logger);
    const certs = openSdsStream(sds.socketPath);
    streams.push(certs);
    certs.request(['default']);
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      await waitFor(() => clock.pendingTimers > 0, 'a retry timer');
      delays.push(...clock.timersDueIn());
      await clock.advance(clock.timersDueIn()[0]!);
    }
    assert.deepEqual(delays, [1000, 2000, 4000]);
    assert.equal(certs.responses.length, 0);
    assert.equal(cache.issued, 0);
  });

  it('given file-cert and file-root names should serve them from the files without waiting for the workload certificate, push a changed file, and count a file that cannot be read', async () => {
    const metrics = createMetrics('pilot-agent', { processMetrics: false });
    // NOTE: a provider that never issues: file secrets alone must not wait for the workload certificate.
    cache = new SecretCache({ provider: { name: 'never', issue: () => new Promise(() => undefined), close: () => undefined }, gracePeriodRatio: 0.5, logger, metrics });
    const files = new FileSecrets({ logger, metrics });
    writeFileSync(join(dir, 'cert.pem'), 'CHAIN-1');
    writeFileSync(join(dir, 'key.pem'), 'KEY-1');
    writeFileSync(join(dir, 'ca.pem'), 'CA-1');
    sds = await SdsServer.start(join(dir, 'socket'), cache, logger, files);
    const certName = `file-cert:${join(dir, 'cert.pem')}~${join(dir, 'key.pem')}`;
    const rootName = `file-root:${join(dir, 'ca.pem')}`;
    const stream = openSdsStream(sds.socketPath);
    streams.push(stream);
    stream.request([certName, rootName]);
    await waitFor(() => stream.responses.length >= 1, 'the file secrets');
    const first = stream.responses[0]!;
    assert.equal(pem(first.secrets[certName]!, 'tlsCertificate', 'certificateChain', 'inlineBytes'), 'CHAIN-1');
    assert.equal(pem(first.secrets[certName]!, 'tlsCertificate', 'privateKey', 'inlineBytes'), 'KEY-1');
    assert.equal(pem(first.secrets[rootName]!, 'validationContext', 'trustedCa', 'inlineBytes'), 'CA-1');
    stream.request([certName, rootName], { versionInfo: first.versionInfo, nonce: first.nonce });
    writeFileSync(join(dir, 'ca.pem'), 'CA-2');
    await waitFor(() => stream.responses.some((r) => r.secrets[rootName] && pem(r.secrets[rootName], 'validationContext', 'trustedCa', 'inlineBytes') === 'CA-2'), 'the changed trust bundle pushed', 10_000);
    const missing = openSdsStream(sds.socketPath);
    streams.push(missing);
    missing.request([`file-root:${join(dir, 'nope.pem')}`]);
    const failures = async (): Promise<number> => (await metrics.counter('num_file_secret_failures_total').get()).values[0]?.value ?? 0;
    for (const end = Date.now() + 10_000; (await failures()) < 1; ) {
      if (Date.now() > end) assert.fail('the unreadable file was not counted');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(missing.responses.length, 0);
    files.close();
  });

  it('given file-root:system should serve the first system trust bundle that exists (VERIFY_CERTIFICATE_AT_CLIENT)', async () => {
    const metrics = createMetrics('pilot-agent', { processMetrics: false });
    cache = new SecretCache({ provider: { name: 'never', issue: () => new Promise(() => undefined), close: () => undefined }, gracePeriodRatio: 0.5, logger, metrics });
    writeFileSync(join(dir, 'os-bundle.pem'), 'OS-ROOTS');
    const files = new FileSecrets({ logger, metrics, systemBundles: [join(dir, 'absent.pem'), join(dir, 'os-bundle.pem')] });
    sds = await SdsServer.start(join(dir, 'socket'), cache, logger, files);
    const stream = openSdsStream(sds.socketPath);
    streams.push(stream);
    stream.request(['file-root:system']);
    await waitFor(() => stream.responses.length >= 1, 'the system trust bundle');
    assert.equal(pem(stream.responses[0]!.secrets['file-root:system']!, 'validationContext', 'trustedCa', 'inlineBytes'), 'OS-ROOTS');
    files.close();
  });
});
