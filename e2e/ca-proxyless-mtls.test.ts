/**
 * The proxyless mTLS scenario of the xDS issue (xds/generators/testing/server-security-scenario.ts: STRICT
 * PeerAuthentication, MESH_MUTUAL DestinationRule, SAN checks through file_watcher certificate providers),
 * with the workload certificates issued by meshd's CA through ca/client (TokenRequest tokens, TLS :15012)
 * instead of a test CA.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as xds from '@grpc/grpc-js-xds';
import { CoreV1Api } from '@kubernetes/client-node';
import { bootstrapJson, callMany, callOnce, MeshHarness, startXdsBackend, until } from '../xds/generators/testing/mesh-harness.js';
import { freePort } from '../xds/testing/free-port.js';
import { caSecretRoot, SecureMeshd, serviceAccountToken, uriSans } from './ca-harness.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster } from './harness/index.js';

const RSA = { algorithm: 'RSA', rsaKeySize: 2048, pkcs8: false } as const;

describe('e2e: proxyless mTLS with workload certificates from meshd\'s CA', function () {
  this.timeout(180_000);
  let core: CoreV1Api;
  let meshNs: string;
  let ns: string;
  let meshd: SecureMeshd;
  let mesh: MeshHarness;
  let dir: string;
  const closers: (() => Promise<void> | void)[] = [];

  before(async () => {
    xds.register();
    core = e2eCluster().kubeConfig().makeApiClient(CoreV1Api);
    meshNs = await createTestNamespace(core, 'e2e-mtls-mesh');
    ns = await createTestNamespace(core, 'e2e-mtls-app');
    for (const name of ['echo', 'client']) await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name } } });
    meshd = await SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs);
    dir = mkdtempSync(join(tmpdir(), 'mesh-e2e-mtls-'));
    mesh = await MeshHarness.start();
  });

  after(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    await mesh?.close();
    await meshd?.stop();
    for (const n of [ns, meshNs]) if (n) await deleteNamespaceFully(core, n);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Asks meshd's CA for `serviceAccount`'s certificate with its own token and writes the file_watcher files. */
  async function issueFromMeshd(certDir: string, serviceAccount: string, root: string): Promise<void> {
    const token = await serviceAccountToken(core, ns, serviceAccount, ['mesh-ca']);
    const client = meshd.certificateClient(root, { token: () => token });
    try {
      const identity = `spiffe://cluster.local/ns/${ns}/sa/${serviceAccount}`;
      const issued = await client.requestCertificate({ identity }, RSA);
      assert.deepEqual(uriSans(issued.certChainPem[0]!), [identity]);
      mkdirSync(certDir, { recursive: true });
      writeFileSync(join(certDir, 'cert-chain.pem'), issued.certChainPem.join(''));
      writeFileSync(join(certDir, 'key.pem'), issued.keyPem);
      writeFileSync(join(certDir, 'root-cert.pem'), root);
    } finally {
      client.close();
    }
  }

  it('given STRICT mTLS with meshd-issued certificates, should serve mTLS clients whose SAN check matches, refuse plaintext, and fail a SAN mismatch', async () => {
    const root = await caSecretRoot(core, meshNs);
    await issueFromMeshd(join(dir, 'server'), 'echo', root);
    await issueFromMeshd(join(dir, 'client'), 'client', root);
    const host = `echo.${ns}.svc.cluster.local`;
    const port = await freePort();
    const dr = (sans: string): string => `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo, namespace: ${ns} }
spec:
  host: ${host}
  trafficPolicy: { tls: { mode: MESH_MUTUAL${sans} } }
`;
    mesh.apply([
      `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo, namespace: ${ns} }
spec:
  hosts: [${host}]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  resolution: STATIC
  workloadSelector: { labels: { app: echo } }
`,
      `apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: echo-1, namespace: ${ns} }
spec: { address: 127.0.0.1, ports: { grpc: ${port} }, labels: { app: echo }, serviceAccount: echo }
`,
      `apiVersion: security.mesh.io/v1
kind: PeerAuthentication
metadata: { name: default, namespace: ${ns} }
spec: { mtls: { mode: STRICT } }
`,
      dr(''),
    ].join('---\n'));
    const backend = await startXdsBackend(xds, 'echo-1', mesh.xdsAddress, ns, { app: 'echo' }, join(dir, 'server'), port);
    closers.push(() => backend.close());
    const client = (creds: grpc.ChannelCredentials): grpc.Client => {
      const c = new grpc.Client(`xds:///${host}:50051`, creds, {
        'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': bootstrapJson(mesh.xdsAddress, ns, { certDir: join(dir, 'client') }),
      });
      closers.push(() => c.close());
      return c;
    };
    const secure = client(new xds.XdsChannelCredentials(grpc.credentials.createInsecure()));
    await until(async () => (await callOnce(secure)).ok, 'an mTLS call');
    assert.deepEqual([...(await callMany(secure, 10))], [['echo-1', 10]]);

    const plain = new grpc.Client(`127.0.0.1:${backend.port}`, grpc.credentials.createInsecure());
    closers.push(() => plain.close());
    assert.equal((await callOnce(plain, undefined, 2000)).ok, false, 'a plaintext client is refused by the STRICT listener');

    mesh.apply(dr(`, subjectAltNames: [spiffe://cluster.local/ns/${ns}/sa/billing]`));
    const fresh = client(new xds.XdsChannelCredentials(grpc.credentials.createInsecure()));
    await until(async () => {
      const x = await callOnce(fresh, undefined, 2000);
      return !x.ok && x.code === grpc.status.UNAVAILABLE;
    }, 'the SAN mismatch to fail calls');
  });
});
