/**
 * Two real meshd processes on one API server (ENABLE_LEADER_ELECTION=true, the CA on, so the
 * root-certificate ConfigMap distribution is leader-only work under the namespace-controller Lease):
 * exactly one holds the Lease and only that one runs the reconciler (its queue metrics say so), a deleted
 * `mesh-ca-root-cert` ConfigMap is restored by the leader; after `kill -9` of the leader the other takes
 * the Lease once it expires and restores a ConfigMap deleted after the kill.
 */
import assert from 'node:assert/strict';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { OrchClient } from '../controllers/index.js';
import { DEFAULT_LEASE_TIMINGS, LEASE_NAMES, ROOT_CERT_CONFIGMAP, ROOT_CERT_KEY, ROOT_CERT_RECONCILER_NAME } from '../reconcilers/index.js';
import { caSecretRoot, SecureMeshd } from './ca-harness.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster, httpStatusOf, uniqueName, waitFor } from './harness/index.js';
import { withMeshdLogs } from './harness/meshd-objects.js';

const CLIENT_OPTIONS = { qps: 50, burst: 100, contentType: 'json' } as const;

interface LeaseObject {
  spec?: { holderIdentity?: string; leaseTransitions?: number };
}

/** How many reconciles of the root-cert reconciler meshd has recorded (its queue duration histogram count). */
async function rootCertReconciles(meshd: SecureMeshd): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${meshd.ports.monitoring}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('pilot_worker_queue_duration_count{') && line.includes(`name="${ROOT_CERT_RECONCILER_NAME}"`)) {
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return total;
}

describe('e2e: two meshd processes with leader election', function () {
  this.timeout(240_000);
  let kc: KubeConfig;
  let core: CoreV1Api;
  let client: OrchClient;
  let meshNs: string;
  let appNs: string;
  const processes: { name: string; meshd: SecureMeshd }[] = [];

  before(async () => {
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    client = new OrchClient(kc, CLIENT_OPTIONS);
    meshNs = await createTestNamespace(core, 'e2e-leader-mesh');
    appNs = await createTestNamespace(core, 'e2e-leader-app');
  });

  after(async () => {
    await Promise.all(processes.splice(0).map((p) => p.meshd.stop()));
    for (const ns of [appNs, meshNs]) if (ns) await deleteNamespaceFully(core, ns);
  });

  async function holder(): Promise<string | undefined> {
    const path = `/apis/coordination.k8s.io/v1/namespaces/${meshNs}/leases/${LEASE_NAMES.namespaceController}`;
    return (await client.request<LeaseObject>('GET', path)).spec?.holderIdentity;
  }

  /** Which process holds the Lease (identities are `<POD_NAME>_<random>`), or undefined. */
  async function holderProcess(): Promise<{ name: string; meshd: SecureMeshd } | undefined> {
    const id = await holder().catch(() => undefined);
    return id === undefined ? undefined : processes.find((p) => id.startsWith(`${p.name}_`));
  }

  async function rootCert(ns: string): Promise<string | undefined> {
    try {
      return (await core.readNamespacedConfigMap({ name: ROOT_CERT_CONFIGMAP, namespace: ns })).data?.[ROOT_CERT_KEY];
    } catch (err) {
      if (httpStatusOf(err) === 404) return undefined;
      throw err;
    }
  }

  /** Adds every meshd's output to a failure. */
  const explained = <T>(run: () => Promise<T>): Promise<T> => withMeshdLogs(processes, run);

  it('given two meshd, should let exactly one run the leader-only work; given the leader is killed, the other should take the Lease and restore a deleted ConfigMap', async () => {
    const env = (podName: string): Record<string, string> => ({
      ENABLE_LEADER_ELECTION: 'true',
      MESH_ENABLE_CONTROLLER_QUEUE_METRICS: 'true',
      POD_NAME: podName,
    });
    const names = [uniqueName('meshd-a'), uniqueName('meshd-b')];
    // NOTE: both start at once: they race for the CA Secret and for the Lease.
    const started = await Promise.all(names.map((n) => SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, env(n))));
    names.forEach((name, i) => processes.push({ name, meshd: started[i]! }));
    const root = await caSecretRoot(core, meshNs);

    const leader = await explained(() => waitFor('one meshd to hold the namespace-controller Lease', holderProcess, 30_000));
    const follower = processes.find((p) => p !== leader)!;
    await explained(() => waitFor('the root cert in the app namespace', async () => (await rootCert(appNs))?.trim() === root.trim(), 60_000));

    // The leader restores a deleted ConfigMap; the follower runs no reconcile at all.
    const before = await rootCertReconciles(leader.meshd);
    assert.ok(before > 0, 'the leader must have reconciled the namespaces');
    await core.deleteNamespacedConfigMap({ name: ROOT_CERT_CONFIGMAP, namespace: appNs });
    await explained(() => waitFor('the leader to restore the ConfigMap', async () => (await rootCert(appNs))?.trim() === root.trim(), 60_000));
    await explained(() => waitFor('the leader to count the restoring reconcile', async () => (await rootCertReconciles(leader.meshd)) > before, 30_000));
    assert.equal(await rootCertReconciles(follower.meshd), 0, 'the follower must not run the leader-only reconciler');
    assert.equal((await holderProcess())?.name, leader.name, 'the Lease stays with the leader while it renews');

    // kill -9: no release; the follower takes over once the lease expires.
    leader.meshd.child.kill('SIGKILL');
    await new Promise((resolve) => (leader.meshd.child.exitCode !== null || leader.meshd.child.signalCode !== null ? resolve(undefined) : leader.meshd.child.once('exit', resolve)));
    await core.deleteNamespacedConfigMap({ name: ROOT_CERT_CONFIGMAP, namespace: appNs });
    // NOTE: the deadline is the guarantee under test: the lease duration plus two (jittered) retry periods,
    // plus slack for a loaded machine; the poll itself asserts no timing beyond it.
    const { leaseDurationMs, retryPeriodMs } = DEFAULT_LEASE_TIMINGS;
    await explained(() => waitFor('the follower to take the Lease', async () => (await holderProcess())?.name === follower.name, leaseDurationMs + 2 * retryPeriodMs * 1.2 + 5000, 200));
    await explained(() => waitFor('the new leader to restore the ConfigMap', async () => (await rootCert(appNs))?.trim() === root.trim(), 60_000));
    assert.ok((await rootCertReconciles(follower.meshd)) > 0, 'the new leader must be the one that reconciled');
    const lease = await client.request<LeaseObject>('GET', `/apis/coordination.k8s.io/v1/namespaces/${meshNs}/leases/${LEASE_NAMES.namespaceController}`);
    assert.equal(lease.spec?.leaseTransitions, 1, 'one hand-over');
  });
});
