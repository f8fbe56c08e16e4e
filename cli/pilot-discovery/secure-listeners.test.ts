import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { pino } from 'pino';
import { createMeshCa, MemoryCaKeyStore, type MeshCa } from '../../ca/index.js';
import { HEALTH_SERVICE_DEFINITION, HealthService } from './health-service.js';
import { createTlsSource, servingDnsNames, TlsFileError, startSecureListeners, type SecureListeners, type TlsSource } from './secure-listeners.js';
import { CipherSuiteError, parseCipherSuites } from './secure-tls.js';

const silent = pino({ level: 'silent' });

function handshake(port: number, ca: string, extra: ConnectionOptions = {}): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'meshd.mesh-system.svc', ...extra }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends a keep-alive GET on an open TLS socket and resolves with the status line. */
function getOn(socket: TLSSocket, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (d: Buffer): void => {
      text += d.toString();
      if (text.includes('\r\n\r\n')) {
        socket.off('data', onData);
        resolve(text.split('\r\n')[0]!);
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: meshd\r\nConnection: keep-alive\r\n\r\n`);
  });
}

describe('meshd secure listeners (TLS from the mesh CA)', function () {
  this.timeout(30_000);
  let dir: string;
  let ca: MeshCa;
  let tls: TlsSource;
  let listeners: SecureListeners & { close(): Promise<void> };
  let health: HealthService;
  let root: string;
  const open: { close(): void }[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-secure-'));
    ({ ca } = await createMeshCa(
      {
        trustDomain: 'cluster.local',
        rootCaDir: join(dir, 'none'),
        selfSigned: { rootTtlMs: 86_400_000, rsaKeySize: 2048, checkIntervalMs: 0, enableJitter: false, gracePeriodPercentile: 50, useCacertsSecret: false },
        workload: { defaultTtlMs: 3_600_000, maxTtlMs: 7_200_000 },
      },
      { selfSignedStore: new MemoryCaKeyStore() },
    ));
    root = ca.trustBundlePem().join('');
    tls = await createTlsSource({ kind: 'ca', ca, dnsNames: servingDnsNames('mesh-system', 'cluster.local', 'meshd.example.com, other.example.com'), ttlMs: 3_600_000 }, silent);
    health = new HealthService();
    listeners = await startSecureListeners(
      { secureGrpcAddr: '127.0.0.1:0', httpsAddr: '127.0.0.1:0', grpcOptions: {}, ciphers: undefined, shutdownMs: 1000, register: (s) => s.addService(HEALTH_SERVICE_DEFINITION, health.handlers()) },
      tls,
    );
  });

  after(async () => {
    for (const o of open.splice(0)) o.close();
    health.shutdown();
    await listeners.close();
    tls.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('given no --tlsCertFile, should serve a CA-issued certificate for meshd.<ns>.svc, its domain form and MESHD_CUSTOM_HOST', async () => {
    const socket = await handshake(listeners.httpsAddress.port, root);
    open.push({ close: () => socket.destroy() });
    assert.ok(socket.authorized, 'the certificate verifies against the CA root');
    const san = new X509Certificate(socket.getPeerX509Certificate()!.raw).subjectAltName;
    assert.equal(san, 'DNS:meshd.mesh-system.svc, DNS:meshd.mesh-system.svc.cluster.local, DNS:meshd.example.com, DNS:other.example.com');
  });

  it('given a path other than /ready on the HTTPS listener, should answer 404 naming the path', async () => {
    const socket = await handshake(listeners.httpsAddress.port, root);
    open.push({ close: () => socket.destroy() });
    assert.equal(await getOn(socket, '/ready'), 'HTTP/1.1 200 OK');
    assert.equal(await getOn(socket, '/inject'), 'HTTP/1.1 404 Not Found');
  });

  it('given a request target that is no URL path ("//") should answer 400 and keep serving (new URL threw in the listener and ended meshd)', async () => {
    const socket = await handshake(listeners.httpsAddress.port, root);
    open.push({ close: () => socket.destroy() });
    assert.equal(await getOn(socket, '//'), 'HTTP/1.1 400 Bad Request');
    assert.equal(await getOn(socket, '/ready'), 'HTTP/1.1 200 OK');
  });

  it('given a renewal, should serve the new certificate to new handshakes and keep open connections working', async () => {
    const httpsOld = await handshake(listeners.httpsAddress.port, root);
    open.push({ close: () => httpsOld.destroy() });
    const grpcOld: ClientHttp2Session = http2Connect(`https://127.0.0.1:${listeners.grpcAddress.port}`, { ca: root, servername: 'meshd.mesh-system.svc' });
    open.push({ close: () => grpcOld.close() });
    const grpcOldSerial = await new Promise<string>((resolve, reject) => {
      grpcOld.once('connect', () => resolve((grpcOld.socket as TLSSocket).getPeerX509Certificate()!.serialNumber));
      grpcOld.once('error', reject);
    });
    const oldSerial = httpsOld.getPeerX509Certificate()!.serialNumber;
    assert.equal(grpcOldSerial, oldSerial, 'both listeners serve the same certificate');

    await tls.renewNow();

    const httpsNew = await handshake(listeners.httpsAddress.port, root);
    open.push({ close: () => httpsNew.destroy() });
    assert.notEqual(httpsNew.getPeerX509Certificate()!.serialNumber, oldSerial, 'HTTPS: a new handshake gets the renewed certificate');
    const grpcNew = await handshake(listeners.grpcAddress.port, root, { ALPNProtocols: ['h2'] });
    open.push({ close: () => grpcNew.destroy() });
    assert.notEqual(grpcNew.getPeerX509Certificate()!.serialNumber, oldSerial, 'gRPC: a new handshake gets the renewed certificate');

    assert.equal(await getOn(httpsOld, '/ready'), 'HTTP/1.1 200 OK', 'the HTTPS connection opened before the renewal still serves');
    assert.equal(grpcOld.closed || grpcOld.destroyed, false);
    await new Promise<void>((resolve, reject) => grpcOld.ping((err) => (err ? reject(err) : resolve())));
  });

  it('given --tlsCertFile and --tlsKeyFile, should serve that certificate; given a missing file, should fail naming the flag', async () => {
    const issued = await ca.issueServingCertificate(['files.example.com'], 3_600_000);
    writeFileSync(join(dir, 'tls.crt'), issued.certChainPem.join(''));
    writeFileSync(join(dir, 'tls.key'), issued.keyPem);
    const fromFiles = await createTlsSource({ kind: 'files', certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), caCertFile: '' }, silent);
    const served = await startSecureListeners(
      { secureGrpcAddr: '127.0.0.1:0', httpsAddr: '127.0.0.1:0', grpcOptions: {}, ciphers: undefined, shutdownMs: 1000, register: () => undefined },
      fromFiles,
    );
    try {
      const socket = await handshake(served.httpsAddress.port, root, { servername: 'files.example.com' });
      open.push({ close: () => socket.destroy() });
      assert.ok(socket.authorized);
      assert.equal(socket.getPeerX509Certificate()!.subjectAltName, 'DNS:files.example.com');
    } finally {
      await served.close();
    }
    await assert.rejects(
      createTlsSource({ kind: 'files', certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'missing.key'), caCertFile: '' }, silent),
      (e: Error) => e instanceof TlsFileError && e.message.startsWith(`--tlsKeyFile ${join(dir, 'missing.key')}: `),
    );
  });

  describe('--tls-cipher-suites', () => {
    const cases: { name: string; names: string[]; ciphers?: string; insecure?: string[]; error?: RegExp }[] = [
      { name: 'given none, should keep the defaults', names: [], ciphers: undefined, insecure: [] },
      {
        name: 'given Go names, should map them to OpenSSL names and keep TLS 1.3 suites on',
        names: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
        ciphers: 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305',
        insecure: [],
      },
      { name: 'given only TLS 1.3 names, should accept them and keep the defaults (TLS 1.3 suites are not configurable)', names: ['TLS_AES_128_GCM_SHA256'], ciphers: undefined, insecure: [] },
      {
        name: 'given an insecure suite, should accept it and report it',
        names: ['TLS_RSA_WITH_AES_128_CBC_SHA'],
        ciphers: 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:AES128-SHA',
        insecure: ['TLS_RSA_WITH_AES_128_CBC_SHA'],
      },
      { name: 'given an unknown name, should fail naming it', names: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_BOGUS'], error: /--tls-cipher-suites: unknown cipher suite "TLS_BOGUS"/ },
    ];
    for (const c of cases) {
      it(c.name, () => {
        if (c.error) {
          assert.throws(() => parseCipherSuites(c.names), (e: Error) => e instanceof CipherSuiteError && c.error!.test(e.message));
          return;
        }
        assert.deepEqual(parseCipherSuites(c.names), { ciphers: c.ciphers, insecure: c.insecure });
      });
    }

    it('given one TLS 1.2 suite, should refuse TLS 1.2 clients offering only another and still accept TLS 1.3', async () => {
      const only = await startSecureListeners(
        { secureGrpcAddr: '127.0.0.1:0', httpsAddr: '127.0.0.1:0', grpcOptions: {}, ciphers: parseCipherSuites(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256']).ciphers, shutdownMs: 1000, register: () => undefined },
        tls,
      );
      try {
        for (const port of [only.httpsAddress.port, only.grpcAddress.port]) {
          const ok = await handshake(port, root, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256', ALPNProtocols: ['h2', 'http/1.1'] });
          ok.destroy();
          await assert.rejects(handshake(port, root, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES256-GCM-SHA384', ALPNProtocols: ['h2', 'http/1.1'] }), /handshake failure|no shared cipher/i);
          const v13 = await handshake(port, root, { minVersion: 'TLSv1.3', ALPNProtocols: ['h2', 'http/1.1'] });
          assert.equal(v13.getProtocol(), 'TLSv1.3');
          v13.destroy();
        }
      } finally {
        await only.close();
      }
    });
  });
});
