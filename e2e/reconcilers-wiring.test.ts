import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { createMeshCa, MemoryCaKeyStore } from '../ca/index.js';
import { connectOrchestrator } from '../cli/pilot-discovery/orch-connection.js';
import { caRootBundle$, startLeaderControllers } from '../cli/pilot-discovery/leader-controllers.js';
import { OrchClient } from '../controllers/index.js';
import { createLogging, createMetrics, DEFAULT_LOG_OPTIONS, Lifecycle, loadEnv, SCOPES } from '../core/index.js';
import { LEASE_NAMES, ROOT_CERT_CONFIGMAP, ROOT_CERT_KEY } from '../reconcilers/index.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster, httpStatusOf, uniqueName, waitFor } from './harness/index.js';

describe('e2e: meshd write-side wiring (leader election + root-certificate distribution)', function () {
  this.timeout(120_000);
  let kc: KubeConfig;
  let core: CoreV1Api;
  let dir: string;
  const namespaces: string[] = [];

  before(() => {
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    dir = mkdtempSync(join(tmpdir(), 'mesh-e2e-wiring-'));
  });

  after(async () => {
    for (const ns of namespaces.splice(0)) await deleteNamespaceFully(core, ns);
    rmSync(dir, { recursive: true, force: true });
  });

  it('given the orchestrator and a CA, should elect a leader under the namespace-controller Lease, distribute the CA roots and release the Lease on shutdown', async () => {
    const run = uniqueName('run');
    const meshNamespace = await createTestNamespace(core, 'e2e-wiring-mesh');
    const selected = uniqueName('e2e-wiring-app');
    await core.createNamespace({ body: { metadata: { name: selected, labels: { 'mesh.io/e2e': 'true', 'mesh.io/e2e-wiring': run } } } });
    namespaces.push(meshNamespace, selected);
    const meshConfigFile = join(dir, 'mesh');
    writeFileSync(meshConfigFile, `discoverySelectors:\n- matchLabels:\n    mesh.io/e2e-wiring: ${run}\n`);

    const { ca } = await createMeshCa(
      {
        trustDomain: 'cluster.local',
        rootCaDir: join(dir, 'no-plugged-in-ca'),
        selfSigned: { rootTtlMs: 86_400_000, rsaKeySize: 2048, checkIntervalMs: 0, enableJitter: false, gracePeriodPercentile: 50, useCacertsSecret: false },
        workload: { defaultTtlMs: 3_600_000, maxTtlMs: 7_200_000 },
      },
      { selfSignedStore: new MemoryCaKeyStore() },
    );
    const env = loadEnv('pilot-discovery', { POD_NAME: 'meshd-e2e', ENABLE_ENHANCED_RESOURCE_SCOPING: 'true' });
    const logging = createLogging({ ...DEFAULT_LOG_OPTIONS, outputLevels: 'all:none' }, SCOPES['pilot-discovery']);
    const lifecycle = new Lifecycle();
    const connection = { env, orchconfig: e2eCluster().kubeconfigPath, orchApiQps: 50, orchApiBurst: 100, registries: ['Orchestrator' as const] };
    const started = startLeaderControllers(
      { env, namespace: meshNamespace, meshConfigFile },
      { logging, metrics: createMetrics('pilot-discovery', { processMetrics: false }), lifecycle },
      { rootCert$: caRootBundle$(ca) },
      connectOrchestrator(connection),
    );
    assert.deepEqual(started, ['root-cert-configmap']);

    const client = new OrchClient(kc, { qps: 50, burst: 100, contentType: 'json' });
    const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${meshNamespace}/leases/${LEASE_NAMES.namespaceController}`;
    const holder = async (): Promise<string | undefined> => (await client.request<{ spec?: { holderIdentity?: string } }>('GET', leasePath)).spec?.holderIdentity;
    try {
      const identity = await waitFor('the Lease to be held', async () => (await holder().catch(() => undefined)) || undefined);
      assert.match(identity, /^meshd-e2e_[0-9a-f]{8}$/);
      const want = ca.trustBundlePem().join('');
      assert.match(want, /^-----BEGIN CERTIFICATE-----/);
      await waitFor('the root ConfigMap in the selected namespace', async () => {
        const cm = await core.readNamespacedConfigMap({ name: ROOT_CERT_CONFIGMAP, namespace: selected }).catch((err: unknown) => {
          if (httpStatusOf(err) === 404) return undefined;
          throw err;
        });
        return cm?.data?.[ROOT_CERT_KEY]?.trim() === want.trim();
      });
    } finally {
      const result = await lifecycle.close(10_000);
      assert.deepEqual(result.errors, []);
      logging.close();
    }
    assert.equal(await holder(), '', 'a clean shutdown releases the Lease');
  });
});
