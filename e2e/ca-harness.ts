/**
 * Support for the CA and xDS-auth e2e tests: meshd as a child process with its secure listeners on free
 * loopback ports and the CA enabled, service-account tokens from TokenRequest, certificate clients over
 * meshd's TLS port, and counter reads from /metrics.
 */
import type { ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import type { CoreV1Api } from '@kubernetes/client-node';
import { CertificateClient, type CertificateClientOptions } from '../ca/index.js';
import { httpStatusOf, spawnMeshd, waitFor, type MeshdChild, type MeshdPorts } from './harness/index.js';

/** A meshd child process with the CA and secure listeners on. */
export class SecureMeshd {
  private constructor(
    private readonly started: MeshdChild,
    readonly namespace: string,
  ) {}

  /** Starts meshd in `namespace` against `kubeconfig` (no --configDir: the Orchestrator sources) and waits for /ready. */
  static async start(kubeconfig: string, namespace: string, env: Readonly<Record<string, string>> = {}, extraArgs: readonly string[] = []): Promise<SecureMeshd> {
    return new SecureMeshd(await spawnMeshd({ kubeconfig, namespace, secure: true, env, extraArgs }), namespace);
  }

  get child(): ChildProcess {
    return this.started.child;
  }

  get ports(): Required<MeshdPorts> {
    return this.started.ports as Required<MeshdPorts>;
  }

  /** Everything meshd printed so far. */
  get log(): string {
    return this.started.log();
  }

  /** Throws with meshd's output when the process has exited (tests call it to explain a refused connection). */
  assertRunning(): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      throw new Error(`meshd exited (${this.child.exitCode ?? this.child.signalCode}):\n${this.log}`);
    }
  }

  /** `127.0.0.1:<secure gRPC port>`. */
  get secureAddress(): string {
    return `127.0.0.1:${this.ports.secureGrpc}`;
  }

  /** The TLS server name meshd's own certificate carries. */
  get serverName(): string {
    return `meshd.${this.namespace}.svc`;
  }

  /** A certificate client of meshd's secure port, trusting `rootCertPem`. */
  certificateClient(rootCertPem: string, options: Partial<CertificateClientOptions> = {}): CertificateClient {
    return new CertificateClient({
      address: this.secureAddress,
      rootCertPem,
      serverName: this.serverName,
      channelOptions: { 'grpc.use_local_subchannel_pool': 1 },
      ...options,
    });
  }

  /** GET a debug path of the plain HTTP port as JSON. */
  async debug<T>(path: string): Promise<T> {
    return (await (await fetch(`http://127.0.0.1:${this.ports.http}${path}`)).json()) as T;
  }

  /** The value of an unlabelled counter or gauge on /metrics (0 when absent). */
  async metric(name: string): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${this.ports.monitoring}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{}`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  }

  /** SIGTERM, then waits for the exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}

/** The CA Secret's root bundle (`root-cert.pem`) once meshd has stored it. */
export async function caSecretRoot(core: CoreV1Api, namespace: string, name = 'mesh-ca-secret'): Promise<string> {
  return waitFor(`secret ${namespace}/${name}`, async () => {
    const secret = await core.readNamespacedSecret({ name, namespace }).catch((err: unknown) => {
      if (httpStatusOf(err) === 404) return undefined;
      throw err;
    });
    const b64 = secret?.data?.['root-cert.pem'];
    return b64 ? Buffer.from(b64, 'base64').toString('utf8') : undefined;
  });
}

/** A TokenRequest token for `serviceAccount` with `audiences`, optionally bound to a pod. */
export async function serviceAccountToken(
  core: CoreV1Api,
  namespace: string,
  serviceAccount: string,
  audiences: readonly string[],
  boundPod?: { readonly name: string; readonly uid: string },
): Promise<string> {
  const res = await core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: {
      spec: {
        audiences: [...audiences],
        expirationSeconds: 600,
        ...(boundPod ? { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: boundPod.name, uid: boundPod.uid } } : {}),
      },
    },
  });
  const token = res.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${serviceAccount} returned no token`);
  return token;
}

/** Whether the PEM chain (leaf first) verifies link by link and ends at a root of `rootBundlePem`. */
export function chainVerifiesTo(chainPem: readonly string[], rootBundlePem: string): boolean {
  const chain = chainPem.map((p) => new X509Certificate(p));
  const roots = rootBundlePem.split(/(?=-----BEGIN CERTIFICATE-----)/).filter((p) => p.includes('BEGIN')).map((p) => new X509Certificate(p));
  for (let i = 0; i + 1 < chain.length; i++) if (!chain[i]!.verify(chain[i + 1]!.publicKey)) return false;
  const top = chain[chain.length - 1]!;
  return roots.some((r) => top.fingerprint256 === r.fingerprint256 || (top.issuer === r.subject && top.verify(r.publicKey)));
}

/** The URI SANs of a PEM certificate. */
export function uriSans(pem: string): string[] {
  const san = new X509Certificate(pem).subjectAltName ?? '';
  return san.split(', ').filter((s) => s.startsWith('URI:')).map((s) => s.slice('URI:'.length));
}
