import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { OrchClient } from '../controllers/index.js';
import { LeaderElector, leaderIdentity } from '../reconcilers/index.js';
import { ManagedProcess, createTestNamespace, deleteNamespaceFully, e2eCluster, uniqueName, waitFor } from './harness/index.js';

const RUNNER = fileURLToPath(new URL('./reconcilers-leader-runner.js', import.meta.url));
const CLIENT_OPTIONS = { qps: 50, burst: 100, contentType: 'json' } as const;
/** Short timings so the crash test finishes quickly; the relation between them is what matters. */
const FAST = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 } as const;

interface LeaseObject {
  spec?: { holderIdentity?: string; leaseTransitions?: number };
}

describe('e2e: leader election over a real API server', function () {
  this.timeout(120_000);
  let kc: KubeConfig;
  let core: CoreV1Api;
  let client: OrchClient;
  let namespace: string;
  let logDir: string;
  const processes: ManagedProcess[] = [];
  const electors: LeaderElector[] = [];

  before(() => {
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    client = new OrchClient(kc, CLIENT_OPTIONS);
    logDir = mkdtempSync(join(tmpdir(), 'mesh-e2e-leader-'));
  });

  beforeEach(async () => {
    namespace = await createTestNamespace(core, 'e2e-leader');
  });

  afterEach(async () => {
    for (const p of processes.splice(0)) await p.stop(5000);
    for (const e of electors.splice(0)) await e.stop();
    await deleteNamespaceFully(core, namespace);
  });

  after(() => {
    rmSync(logDir, { recursive: true, force: true });
  });

  async function holder(lease: string): Promise<string | undefined> {
    const path = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${lease}`;
    const got = await client.request<LeaseObject>('GET', path);
    return got.spec?.holderIdentity;
  }

  function startRunner(lease: string, identity: string): ManagedProcess {
    const args = [RUNNER, e2eCluster().kubeconfigPath, namespace, lease, identity, String(FAST.leaseDurationMs), String(FAST.renewDeadlineMs), String(FAST.retryPeriodMs)];
    const p = ManagedProcess.start(identity, process.execPath, args, join(logDir, `${identity}.log`));
    processes.push(p);
    return p;
  }

  const said = (p: ManagedProcess, event: string): boolean => p.tailLog(100_000).split('\n').some((line) => line.includes(`"event":"${event}"`));

  it('given two processes, should let exactly one lead; given the leader is killed, the other should take over within the lease duration', async () => {
    const lease = uniqueName('mesh-leader');
    const one = startRunner(lease, uniqueName('meshd-a'));
    const two = startRunner(lease, uniqueName('meshd-b'));
    const first = await waitFor('one process to hold the lease', async () => (await holder(lease).catch(() => undefined)) || undefined, 30_000);
    const [leader, follower] = first === one.name ? [one, two] : [two, one];
    assert.equal(first, leader.name, 'the holder must be one of the two processes');
    await waitFor('the leader to report leading', () => said(leader, 'leading'), 30_000);
    // Several renew periods with both alive: the lease stays with the first leader and the other never leads.
    const stableUntil = Date.now() + 3 * FAST.retryPeriodMs;
    await waitFor('a few renew periods to pass', () => Date.now() >= stableUntil);
    assert.equal(await holder(lease), leader.name);
    assert.equal(said(follower, 'leading'), false, 'the follower must not lead while the leader renews');

    process.kill(leader.pid!, 'SIGKILL');
    await leader.exited;
    // NOTE: the deadline is the guarantee under test: lease duration plus one (jittered) retry period, plus
    // slack for a loaded machine; the poll itself asserts no timing beyond it.
    await waitFor('the follower to take the lease', async () => (await holder(lease)) === follower.name, FAST.leaseDurationMs + 2 * FAST.retryPeriodMs + 5000);
    await waitFor('the follower to report leading', () => said(follower, 'leading'), 5000);
    const got = await client.request<LeaseObject>('GET', `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${lease}`);
    assert.equal(got.spec?.leaseTransitions, 1);
  });

  it('given the leader stops cleanly, should release the lease and the other should take over long before the lease would expire', async () => {
    const lease = uniqueName('mesh-status-leader');
    const timings = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 500 };
    const a = new LeaderElector({ client, namespace, name: lease, identity: leaderIdentity('meshd-a'), ...timings });
    const b = new LeaderElector({ client, namespace, name: lease, identity: leaderIdentity('meshd-b'), ...timings });
    electors.push(a, b);
    a.start();
    await waitFor('a to lead', () => a.isLeader);
    b.start();
    await waitFor('b to observe the lease held', async () => (await holder(lease)) === a.identity);
    const stopped: string[] = [];
    a.runWhileLeading({ start: () => undefined, stop: async () => { stopped.push('a'); } });
    await a.stop();
    assert.deepEqual(stopped, ['a'], 'leader-only tasks stop when leadership is released');
    assert.equal(a.isLeader, false);
    await waitFor('b to take over', () => b.isLeader, timings.leaseDurationMs / 3);
    assert.equal(await holder(lease), b.identity);
  });
});
