import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { CoreV1Api } from '@kubernetes/client-node';
import { TYPE_URL } from '../xds/index.js';
import { AdsClient } from '../xds/testing/index.js';
import { caSecretRoot, SecureMeshd, serviceAccountToken } from './ca-harness.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster } from './harness/index.js';

const RSA = { algorithm: 'RSA', rsaKeySize: 2048, pkcs8: false } as const;

describe('e2e: xDS authentication on meshd (XDS_AUTH, XDS_AUTH_PLAINTEXT, PILOT_ENABLE_XDS_IDENTITY_CHECK)', function () {
  this.timeout(180_000);
  let core: CoreV1Api;
  let meshNs: string;
  let appNs: string;
  let meshd: SecureMeshd;
  let strictPlaintext: SecureMeshd;
  let root: string;
  const clients: { close(): void }[] = [];

  before(async () => {
    core = e2eCluster().kubeConfig().makeApiClient(CoreV1Api);
    meshNs = await createTestNamespace(core, 'e2e-xdsauth-mesh');
    appNs = await createTestNamespace(core, 'e2e-xdsauth-app');
    await core.createNamespacedServiceAccount({ namespace: appNs, body: { metadata: { name: 'sa1' } } });
    meshd = await SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs);
    strictPlaintext = await SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, { XDS_AUTH_PLAINTEXT: 'true' });
    root = await caSecretRoot(core, meshNs);
  });

  after(async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all([meshd?.stop(), strictPlaintext?.stop()]);
    for (const ns of [appNs, meshNs]) if (ns) await deleteNamespaceFully(core, ns);
  });

  function node(namespace: string): { id: string; metadata: Record<string, unknown> } {
    return { id: `sidecar~127.0.0.1~client.${namespace}~${namespace}.svc.cluster.local`, metadata: { GENERATOR: 'grpc', NAMESPACE: namespace } };
  }

  function tlsCredentials(token: string | undefined, clientCert?: { certChainPem: string; keyPem: string }): grpc.ChannelCredentials {
    const ssl = grpc.credentials.createSsl(Buffer.from(root), clientCert ? Buffer.from(clientCert.keyPem) : null, clientCert ? Buffer.from(clientCert.certChainPem) : null);
    if (token === undefined) return ssl;
    return grpc.credentials.combineChannelCredentials(ssl, grpc.credentials.createFromMetadataGenerator((_p, cb) => {
      const md = new grpc.Metadata();
      md.set('authorization', `Bearer ${token}`);
      cb(null, md);
    }));
  }

  /** Opens an ADS stream, asks for clusters, and resolves with 'OK' on a response or the status code that ended it. */
  async function streamOutcome(address: string, credentials: grpc.ChannelCredentials, namespace: string, secure: boolean): Promise<string> {
    const client = new AdsClient({
      address,
      node: node(namespace),
      credentials,
      channelOptions: { 'grpc.use_local_subchannel_pool': 1, ...(secure ? { 'grpc.ssl_target_name_override': meshd.serverName } : {}) },
    });
    clients.push(client);
    client.subscribe(TYPE_URL.cluster);
    try {
      await client.stream.waitFor('a CDS response', () => (client.responses.length > 0 ? true : undefined), 20_000);
      return 'OK';
    } catch {
      const status = await client.status;
      return `${grpc.status[status.code]}: ${status.details}`;
    }
  }

  it('given a valid token for the node\'s namespace on the secure port, should serve the stream', async () => {
    const token = await serviceAccountToken(core, appNs, 'sa1', ['mesh-ca']);
    assert.equal(await streamOutcome(meshd.secureAddress, tlsCredentials(token), appNs, true), 'OK');
  });

  it('given no token on the secure port, should end the stream with UNAUTHENTICATED saying why', async () => {
    const result = await streamOutcome(meshd.secureAddress, tlsCredentials(undefined), appNs, true);
    assert.match(result, /^UNAUTHENTICATED: xDS authentication failed \(token: no bearer token/);
  });

  it('given a valid token of another namespace than the node claims, should end the stream with PERMISSION_DENIED', async () => {
    const token = await serviceAccountToken(core, appNs, 'sa1', ['mesh-ca']);
    const result = await streamOutcome(meshd.secureAddress, tlsCredentials(token), meshNs, true);
    assert.match(result, new RegExp(`^PERMISSION_DENIED: xDS identity check failed: .*claims namespace ${meshNs}`));
  });

  it('given a workload certificate from the mesh CA (mTLS, no token), should serve the stream', async () => {
    const token = await serviceAccountToken(core, appNs, 'sa1', ['mesh-ca']);
    const ca = meshd.certificateClient(root, { token: () => token });
    clients.push(ca);
    const issued = await ca.requestCertificate({ identity: `spiffe://cluster.local/ns/${appNs}/sa/sa1` }, RSA);
    const cert = { certChainPem: issued.certChainPem.join(''), keyPem: issued.keyPem };
    assert.equal(await streamOutcome(meshd.secureAddress, tlsCredentials(undefined, cert), appNs, true), 'OK');
  });

  const plaintext = [
    { name: 'given XDS_AUTH_PLAINTEXT false, should serve a plaintext stream without credentials', strict: false, want: /^OK$/ },
    { name: 'given XDS_AUTH_PLAINTEXT true, should end a plaintext stream without credentials with UNAUTHENTICATED', strict: true, want: /^UNAUTHENTICATED: / },
  ];
  for (const c of plaintext) {
    it(c.name, async () => {
      const m = c.strict ? strictPlaintext : meshd;
      assert.match(await streamOutcome(`127.0.0.1:${m.ports.grpc}`, grpc.credentials.createInsecure(), appNs, false), c.want);
    });
  }
});
