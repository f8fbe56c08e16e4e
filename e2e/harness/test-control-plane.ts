import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { generateClusterPki, type ClusterPki } from './certs.js';
import { ManagedProcess, freePorts } from './child-process.js';
import type { TestBinaries } from './test-binaries.js';

/** The audiences the API server accepts for service-account tokens (the CA issue needs `mesh-ca`). */
export const API_AUDIENCES = ['https://kubernetes.default.svc.cluster.local', 'mesh-ca'] as const;
/** The service-account token issuer of the test API server. */
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** Options of {@link TestControlPlane.start}. */
export interface TestControlPlaneOptions {
  readonly binaries: TestBinaries;
  /** How long to wait for etcd health and kube-apiserver `/readyz`; default 180 s (2 shared cores). */
  readonly readyTimeoutMs?: number;
}

/** Thrown when a component does not start, or exits before it is ready. */
export class ControlPlaneError extends Error {
  override readonly name = 'ControlPlaneError';
}

interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

/**
 * A real etcd and kube-apiserver on 127.0.0.1 (free ports, a temporary folder, fresh certificates), with an
 * admin kubeconfig. The API server authorizes with RBAC, signs service-account tokens (TokenRequest and
 * TokenReview work for the audiences in {@link API_AUDIENCES}) and runs with few admission plugins. No
 * controller-manager runs: namespaces stay `Terminating` until their finalizer is removed.
 */
export class TestControlPlane {
  readonly #dir: string;
  readonly #pki: ClusterPki;
  readonly #binaries: TestBinaries;
  readonly #readyTimeoutMs: number;
  readonly #etcdClientPort: number;
  readonly #etcdPeerPort: number;
  readonly #apiPort: number;
  #etcd: ManagedProcess | undefined;
  #apiServer: ManagedProcess | undefined;
  #apiStarts = 0;

  /** Path of the admin kubeconfig (client certificate in group system:masters). */
  readonly kubeconfigPath: string;

  private constructor(options: TestControlPlaneOptions, ports: [number, number, number]) {
    this.#binaries = options.binaries;
    this.#readyTimeoutMs = options.readyTimeoutMs ?? 180_000;
    [this.#etcdClientPort, this.#etcdPeerPort, this.#apiPort] = ports;
    this.#dir = mkdtempSync(join(tmpdir(), 'mesh-e2e-'));
    this.#pki = generateClusterPki();
    this.kubeconfigPath = join(this.#dir, 'kubeconfig');
    this.#writeFiles();
  }

  /** Starts etcd, then kube-apiserver, and waits until both are ready. Cleans up when either fails. */
  static async start(options: TestControlPlaneOptions): Promise<TestControlPlane> {
    const ports = (await freePorts(3)) as [number, number, number];
    const plane = new TestControlPlane(options, ports);
    try {
      await plane.#startEtcd();
      await plane.startApiServer();
    } catch (err) {
      await plane.stop();
      throw err;
    }
    return plane;
  }

  /** The API server's URL, e.g. `https://127.0.0.1:43127`. */
  get server(): string {
    return `https://127.0.0.1:${this.#apiPort}`;
  }

  /** etcd's client URL (plain HTTP on loopback). */
  get etcdUrl(): string {
    return `http://127.0.0.1:${this.#etcdClientPort}`;
  }

  /** The CA that signed the serving and client certificates (PEM). */
  get caPem(): string {
    return this.#pki.ca.certPem;
  }

  /** A fresh KubeConfig loaded from the admin kubeconfig. */
  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromFile(this.kubeconfigPath);
    return kc;
  }

  /** Starts kube-apiserver on its fixed port and waits for `/readyz`. */
  async startApiServer(): Promise<void> {
    if (this.#apiServer?.running) throw new ControlPlaneError('kube-apiserver is already running');
    this.#apiStarts += 1;
    const log = join(this.#dir, `kube-apiserver-${this.#apiStarts}.log`);
    const proc = ManagedProcess.start('kube-apiserver', this.#binaries.kubeApiserver, this.#apiServerArgs(), log);
    this.#apiServer = proc;
    await this.#waitReady(proc, () => this.#get(`${this.server}/readyz`), (a) => a.status === 200);
  }

  /** Stops kube-apiserver (its process group); etcd and the port stay. */
  async stopApiServer(): Promise<void> {
    await this.#apiServer?.stop();
  }

  /** Stops and starts kube-apiserver on the same port and etcd, e.g. for watch-resume tests. */
  async restartApiServer(): Promise<void> {
    await this.stopApiServer();
    await this.startApiServer();
  }

  /**
   * Compacts etcd at its current revision (through etcd's JSON gateway), so that watches from any older
   * resourceVersion expire. Returns the revision compacted at.
   */
  async compactEtcd(): Promise<number> {
    const range = await this.#etcdPost('/v3/kv/range', { key: Buffer.from('/').toString('base64'), limit: 1 });
    const revision = Number((JSON.parse(range) as { header?: { revision?: string } }).header?.revision);
    if (!Number.isFinite(revision) || revision <= 0) {
      throw new ControlPlaneError(`etcd range answered without a revision: ${range}`);
    }
    await this.#etcdPost('/v3/kv/compaction', { revision: String(revision), physical: true });
    return revision;
  }

  /** The temporary folder with the logs, certificates, kubeconfig and etcd data. */
  get dir(): string {
    return this.#dir;
  }

  /**
   * Stops kube-apiserver and etcd and removes the temporary folder, unless `keepFiles` (to read the logs
   * after a failure). Safe to call twice.
   */
  async stop(options: { keepFiles?: boolean } = {}): Promise<void> {
    await this.#apiServer?.stop();
    await this.#etcd?.stop();
    if (!options.keepFiles) rmSync(this.#dir, { recursive: true, force: true });
  }

  #writeFiles(): void {
    const pki = join(this.#dir, 'pki');
    mkdirSync(pki, { recursive: true });
    const files: Record<string, string> = {
      'ca.crt': this.#pki.ca.certPem,
      'serving.crt': this.#pki.serving.certPem,
      'serving.key': this.#pki.serving.keyPem,
      'sa.pub': this.#pki.serviceAccount.publicKeyPem,
      'sa.key': this.#pki.serviceAccount.privateKeyPem,
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(pki, name), text, { mode: 0o600 });
    const b64 = (text: string): string => Buffer.from(text).toString('base64');
    const kubeconfig = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'mesh-e2e', cluster: { server: this.server, 'certificate-authority-data': b64(this.#pki.ca.certPem) } }],
      users: [
        {
          name: 'mesh-e2e-admin',
          user: { 'client-certificate-data': b64(this.#pki.admin.certPem), 'client-key-data': b64(this.#pki.admin.keyPem) },
        },
      ],
      contexts: [{ name: 'mesh-e2e', context: { cluster: 'mesh-e2e', user: 'mesh-e2e-admin' } }],
      'current-context': 'mesh-e2e',
    };
    writeFileSync(this.kubeconfigPath, JSON.stringify(kubeconfig, null, 2), { mode: 0o600 });
  }

  async #startEtcd(): Promise<void> {
    const client = this.etcdUrl;
    const peer = `http://127.0.0.1:${this.#etcdPeerPort}`;
    const args = [
      '--name=e2e',
      `--data-dir=${join(this.#dir, 'etcd-data')}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=e2e=${peer}`,
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ];
    const proc = ManagedProcess.start('etcd', this.#binaries.etcd, args, join(this.#dir, 'etcd.log'));
    this.#etcd = proc;
    await this.#waitReady(proc, () => this.#get(`${client}/health`), (a) => a.status === 200 && a.body.includes('true'));
  }

  #apiServerArgs(): string[] {
    const pki = join(this.#dir, 'pki');
    return [
      `--etcd-servers=${this.etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${this.#apiPort}`,
      `--tls-cert-file=${join(pki, 'serving.crt')}`,
      `--tls-private-key-file=${join(pki, 'serving.key')}`,
      `--client-ca-file=${join(pki, 'ca.crt')}`,
      `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
      `--service-account-key-file=${join(pki, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(pki, 'sa.key')}`,
      `--api-audiences=${API_AUDIENCES.join(',')}`,
      '--authorization-mode=RBAC',
      // NOTE: no controller-manager creates `default` service accounts, so the ServiceAccount admission
      // plugin would refuse every pod; webhooks stay on for the injection and validation tests.
      '--disable-admission-plugins=ServiceAccount',
      '--service-cluster-ip-range=10.96.0.0/16',
      '--endpoint-reconciler-type=none',
      '--allow-privileged=true',
      '--profiling=false',
      '--v=1',
    ];
  }

  async #waitReady(proc: ManagedProcess, probe: () => Promise<HttpAnswer>, ok: (a: HttpAnswer) => boolean): Promise<void> {
    const deadline = Date.now() + this.#readyTimeoutMs;
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (!proc.running) {
        throw new ControlPlaneError(`${proc.name} exited before it was ready; log ${proc.logFile}:\n${proc.tailLog()}`);
      }
      try {
        const answer = await probe();
        if (ok(answer)) return;
        last = `HTTP ${answer.status}: ${answer.body.slice(0, 500)}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await proc.stop();
    throw new ControlPlaneError(
      `${proc.name} was not ready within ${this.#readyTimeoutMs} ms (last probe: ${last}); log ${proc.logFile}:\n${proc.tailLog()}`,
    );
  }

  #get(url: string): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const tls = url.startsWith('https:')
        ? { ca: this.#pki.ca.certPem, cert: this.#pki.admin.certPem, key: this.#pki.admin.keyPem }
        : {};
      const req = (url.startsWith('https:') ? httpsRequest : httpRequest)(url, { ...tls, timeout: 5000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
      req.on('error', reject);
      req.end();
    });
  }

  #etcdPost(path: string, body: object): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${this.etcdUrl}${path}`, { method: 'POST', timeout: 10_000 }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(text)
            : reject(new ControlPlaneError(`etcd ${path} answered HTTP ${String(res.statusCode)}: ${text}`)),
        );
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`etcd ${path} timed out`)));
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  }
}
