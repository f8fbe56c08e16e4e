import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { createSelfSignedRoot } from '../../ca/index.js';
import { freePorts, programEnv, runProgram, startProgram, waitForHttp, type ProgramProcess } from '../testing/program-process.js';

/** The server certificate chain meshd's HTTPS listener presents (leaf first), once it listens. */
async function servedChain(port: number, proc: ProgramProcess, deadlineMs = 15_000): Promise<X509Certificate[]> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await new Promise<X509Certificate[]>((resolve, reject) => {
        const socket: TLSSocket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false, servername: 'meshd.mesh-system.svc' }, () => {
          const chain: X509Certificate[] = [];
          let cert = socket.getPeerCertificate(true);
          const seen = new Set<string>();
          while (cert && cert.raw && !seen.has(cert.fingerprint256)) {
            seen.add(cert.fingerprint256);
            chain.push(new X509Certificate(cert.raw));
            cert = cert.issuerCertificate;
          }
          socket.destroy();
          resolve(chain);
        });
        socket.once('error', reject);
      });
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`no TLS on port ${port}: ${(err as Error).message}\n${proc.stderr()}${proc.stdout()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function stop(proc: ProgramProcess): Promise<void> {
  if (proc.child.exitCode === null && proc.child.signalCode === null) {
    proc.child.kill('SIGTERM');
    await proc.exited;
  }
}

describe('pilot-discovery discovery: the secure side (process)', function () {
  this.timeout(60_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-secure-side-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function start(env: Record<string, string>, extra: string[] = []): Promise<{ proc: ProgramProcess; https: number; secureGrpc: number; http: number }> {
    const [grpc, http, monitoring, ctrlz, secureGrpc, https] = await freePorts(6);
    const proc = startProgram('pilot-discovery', [
      'discovery',
      `--grpcAddr=127.0.0.1:${grpc}`, `--httpAddr=127.0.0.1:${http}`, `--monitoringAddr=127.0.0.1:${monitoring}`,
      '--ctrlz_address=127.0.0.1', `--ctrlz_port=${ctrlz}`,
      `--secureGRPCAddr=127.0.0.1:${secureGrpc}`, `--httpsAddr=127.0.0.1:${https}`,
      '--meshConfig=/nonexistent/mesh', '--networksConfig=/nonexistent/meshNetworks',
      ...extra,
    ], programEnv({ ROOT_CA_DIR: join(dir, 'no-cacerts'), ...env }));
    await waitForHttp(`http://127.0.0.1:${http}/ready`, proc);
    return { proc, https: https!, secureGrpc: secureGrpc!, http: http! };
  }

  it('given cacerts in ROOT_CA_DIR, should serve a certificate signed by the plugged-in CA', async () => {
    const root = await createSelfSignedRoot({ trustDomain: 'cluster.local', ttlMs: 86_400_000, rsaKeySize: 2048, now: new Date() });
    const cacerts = join(dir, 'cacerts');
    rmSync(cacerts, { recursive: true, force: true });
    mkdirSync(cacerts);
    for (const [file, text] of [['ca-cert.pem', root.certPem], ['ca-key.pem', root.keyPem], ['root-cert.pem', root.certPem], ['cert-chain.pem', root.certPem]] as const) writeFileSync(join(cacerts, file), text);
    const m = await start({ ROOT_CA_DIR: cacerts });
    try {
      const chain = await servedChain(m.https, m.proc);
      const pluggedIn = new X509Certificate(root.certPem);
      assert.ok(chain[0]!.verify(pluggedIn.publicKey), 'the serving certificate is signed by the plugged-in CA');
      assert.match(m.proc.stdout() + m.proc.stderr(), /CA ready.*mode=plugged-in/);
    } finally {
      await stop(m.proc);
    }
  });

  it('given no orchestrator, should run an in-memory self-signed root and say it is ephemeral', async () => {
    const m = await start({});
    try {
      const chain = await servedChain(m.https, m.proc);
      assert.equal(chain[0]!.subjectAltName, 'DNS:meshd.mesh-system.svc, DNS:meshd.mesh-system.svc.cluster.local');
      assert.match(m.proc.stdout() + m.proc.stderr(), /self-signed root is kept in memory only.*ephemeral/);
    } finally {
      await stop(m.proc);
    }
  });

  it('given ENABLE_CA_SERVER=false and no --tlsCertFile, should leave the secure listeners off and say so', async () => {
    const m = await start({ ENABLE_CA_SERVER: 'false' });
    try {
      await assert.rejects(servedChain(m.https, m.proc, 500), /no TLS on port/);
      assert.match(m.proc.stdout() + m.proc.stderr(), /ENABLE_CA_SERVER is false and no --tlsCertFile/);
    } finally {
      await stop(m.proc);
    }
  });

  const bad: { name: string; args: string[]; error: RegExp }[] = [
    { name: 'given an unknown cipher suite, should name it and exit 1', args: ['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_NOPE'], error: /Error: --tls-cipher-suites: unknown cipher suite "TLS_NOPE"/ },
    { name: 'given --tlsCertFile without --tlsKeyFile, should say they go together and exit 1', args: ['--tlsCertFile=/tmp/x.pem'], error: /Error: --tlsCertFile and --tlsKeyFile go together/ },
  ];
  for (const c of bad) {
    it(c.name, async () => {
      const [grpc, http, monitoring, ctrlz] = await freePorts(4);
      const r = await runProgram('pilot-discovery', [
        'discovery', `--grpcAddr=127.0.0.1:${grpc}`, `--httpAddr=127.0.0.1:${http}`, `--monitoringAddr=127.0.0.1:${monitoring}`,
        '--ctrlz_address=127.0.0.1', `--ctrlz_port=${ctrlz}`, ...c.args,
      ]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, c.error);
    });
  }
});
