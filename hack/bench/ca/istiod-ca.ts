/**
 * istiod's certificate service as the reference of bench:ca: istiod (ENABLE_CA_SERVER=true, self-signed
 * RSA 2048 root) beside a real API server, its CA on the secure gRPC port, callers authenticated by
 * Kubernetes service-account tokens that istiod checks with TokenReview (as meshd's CA does, there with a
 * fake reviewer). One service account `sa<i>` in namespace `bench` per caller, as for meshd.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OrchClient } from '../../../controllers/index.js';
import { ensureNamespace, type BenchCluster } from '../kube-cluster.js';
import { processCpuSeconds, ServerProcess } from '../xds/server-process.js';
import { ISTIOD_MESH_CONFIG } from '../xds/bench-target.js';
import { freePorts } from '../../../xds/testing/free-port.js';
import type { ServerInfo } from './bench-server.js';

/** The audience of the callers' tokens: one the test API server accepts, given to istiod as TOKEN_AUDIENCES. */
export const ISTIOD_TOKEN_AUDIENCE = 'mesh-ca';
/** The name istiod's serving certificate carries (POD_NAMESPACE istio-system). */
export const ISTIOD_SERVER_NAME = 'istiod.istio-system.svc';

/** istiod's certificate service: meshd's renamed, with the same request and response messages. */
export const ISTIOD_CERTIFICATE_SERVICE = 'istio.v1.auth.IstioCertificateService';

/** A running istiod CA. */
export interface IstiodCa {
  readonly info: ServerInfo;
  /** CPU seconds of istiod so far. */
  cpuSeconds(): number;
  close(): Promise<void>;
}

/** Service accounts `sa0..sa<n-1>` in `bench` and one token each (TokenRequest, audience {@link ISTIOD_TOKEN_AUDIENCE}). */
export async function issueBenchTokens(client: OrchClient, callers: number): Promise<string[]> {
  await ensureNamespace(client, 'bench');
  const tokens: string[] = [];
  for (let i = 0; i < callers; i++) {
    const sa = `sa${i}`;
    try {
      await client.request('POST', '/api/v1/namespaces/bench/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa } } });
    } catch (err) {
      if ((err as { status?: number }).status !== 409) throw err;
    }
    const got = await client.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/bench/serviceaccounts/${sa}/token`, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [ISTIOD_TOKEN_AUDIENCE], expirationSeconds: 3600 } },
    });
    tokens.push(got.status.token);
  }
  return tokens;
}

/** The root certificate istiod's self-signed CA keeps in `istio-system/istio-ca-secret`, once it exists. */
async function istiodRoot(client: OrchClient, server: ServerProcess, deadlineMs: number): Promise<string> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (server.exitStatus) throw new Error(`istiod exited before its CA was ready; output:\n${server.output.slice(-4000)}`);
    try {
      const secret = await client.request<{ data?: Record<string, string> }>('GET', '/api/v1/namespaces/istio-system/secrets/istio-ca-secret');
      const pem = secret.data?.['ca-cert.pem'];
      if (pem) return Buffer.from(pem, 'base64').toString('utf8');
    } catch (err) {
      if ((err as { status?: number }).status !== 404) throw err;
    }
    if (Date.now() > end) throw new Error(`istiod wrote no istio-system/istio-ca-secret within ${deadlineMs} ms; output:\n${server.output.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Starts istiod with its CA against `cluster` and issues `callers` tokens. `kubeQps` > 0 raises istiod's
 * kube client rate limit (`--kubeClientQPS`, burst twice that); 0 keeps istiod's default (80/s).
 */
export async function startIstiodCa(istiodBin: string, cluster: BenchCluster, callers: number, log: (line: string) => void, kubeQps = 0): Promise<IstiodCa> {
  const dir = mkdtempSync(join(tmpdir(), 'mesh-bench-ca-istiod-'));
  const meshConfig = join(dir, 'mesh.yaml');
  writeFileSync(meshConfig, ISTIOD_MESH_CONFIG);
  const [grpc, secure, http, monitoring, ctrlz] = (await freePorts(5)) as [number, number, number, number, number];
  const command =
    `${istiodBin} discovery --kubeconfig ${cluster.kubeconfigPath} --registries=Kubernetes --meshConfig ${meshConfig} --networksConfig none ` +
    `--domain cluster.local --grpcAddr 127.0.0.1:${grpc} --secureGRPCAddr 127.0.0.1:${secure} --httpsAddr= --httpAddr 127.0.0.1:${http} ` +
    `--monitoringAddr 127.0.0.1:${monitoring} --ctrlz_port ${ctrlz} --log_output_level=default:warn,ads:warn,klog:error` +
    // NOTE: each CreateCertificate makes one TokenReview; istiod's kube client allows 80 requests/s by default.
    (kubeQps > 0 ? ` --kubeClientQPS ${kubeQps} --kubeClientBurst ${kubeQps * 2}` : '');
  log(`istiod: ${command}`);
  const server = ServerProcess.spawn(
    command,
    { POD_NAMESPACE: 'istio-system', POD_NAME: 'istiod-bench', ENABLE_CA_SERVER: 'true', TOKEN_AUDIENCES: ISTIOD_TOKEN_AUDIENCE },
    process.cwd(),
  );
  try {
    const tokens = await issueBenchTokens(cluster.client, callers);
    await server.waitForPort(secure, 300_000);
    const rootCertPem = await istiodRoot(cluster.client, server, 120_000);
    log(`istiod: CA listening on 127.0.0.1:${secure} (pid ${server.pid})`);
    return {
      info: { address: `127.0.0.1:${secure}`, serverName: ISTIOD_SERVER_NAME, rootCertPem, tokens, service: ISTIOD_CERTIFICATE_SERVICE },
      cpuSeconds: () => processCpuSeconds(server.pid),
      close: async () => {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
