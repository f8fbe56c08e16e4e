/**
 * Chaos: `kill -9` of the status-writing leader while its status writes are in progress. Two real meshd
 * processes (PILOT_ENABLE_STATUS=true, ENABLE_LEADER_ELECTION=true, writes slowed to PILOT_STATUS_QPS=4 so a
 * backlog exists) share one API server; VirtualServices are created (some refused by meshd's semantic
 * checks) and updated before and after the kill. The follower must take the `mesh-status-leader` Lease once it
 * expires, every object must end with the `Reconciled` condition of its final generation (no lost write), and a
 * watch of the objects plus the API server's request counter must show at most one status write per object and
 * generation, never going back (no duplicated or stale write). The test prints what it survived.
 */
import assert from 'node:assert/strict';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { OrchClient, type RawWatchEvent } from '../controllers/index.js';
import { KINDS, renderCrds, validateConfig } from '../crds/index.js';
import { DEFAULT_LEASE_TIMINGS, LEASE_NAMES, type StatusCondition } from '../reconcilers/index.js';
import { applyCrds, createTestNamespace, deleteNamespaceFully, e2eCluster, uniqueName, waitFor } from './harness/index.js';
import { MeshdProcess } from './orch-meshd-harness.js';
import { type VirtualServiceObject, withMeshdLogs } from './harness/meshd-objects.js';

const CLIENT_OPTIONS = { qps: 200, burst: 400, contentType: 'json' } as const;
const VS = KINDS.VirtualService;
const OBJECTS = 120;

/** One status write as the watch saw it: the object's Reconciled condition changed. */
interface SeenWrite {
  readonly name: string;
  readonly at: number;
  readonly condition: StatusCondition;
}

/** `apiserver_request_total` for PATCH of virtualservices/status, by HTTP code. */
function statusPatchCounts(metricsText: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of metricsText.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'));
    const has = (k: string, v: string): boolean => labels.includes(`${k}="${v}"`);
    if (!(has('verb', 'PATCH') && has('resource', VS.plural) && has('subresource', 'status'))) continue;
    const code = /code="(\d+)"/.exec(labels)?.[1] ?? '?';
    counts.set(code, (counts.get(code) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

interface LeaseObject {
  spec?: { holderIdentity?: string; acquireTime?: string; renewTime?: string; leaseTransitions?: number };
}

const reconciledOf = (o: VirtualServiceObject | Record<string, unknown>): StatusCondition | undefined =>
  (o as VirtualServiceObject).status?.conditions?.find((c) => c.type === 'Reconciled');

describe('e2e: kill -9 of the status-writing meshd leader during status writes', function () {
  this.timeout(300_000);
  let kc: KubeConfig;
  let core: CoreV1Api;
  let client: OrchClient;
  let namespace: string;
  let watch: Subscription | undefined;
  const processes: { name: string; meshd: MeshdProcess }[] = [];

  before(async () => {
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    client = new OrchClient(kc, CLIENT_OPTIONS);
    await applyCrds(client, renderCrds());
    namespace = await createTestNamespace(core, 'e2e-leader-kill');
  });

  after(async () => {
    watch?.unsubscribe();
    await Promise.all(processes.splice(0).map((p) => p.meshd.stop()));
    if (namespace) await deleteNamespaceFully(core, namespace);
  });

  const collection = (): string => `/apis/${VS.group}/${VS.storageVersion}/namespaces/${namespace}/${VS.plural}`;
  const leasePath = (): string => `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${LEASE_NAMES.status}`;

  async function holderProcess(): Promise<{ name: string; meshd: MeshdProcess } | undefined> {
    const lease = await client.request<LeaseObject>('GET', leasePath()).catch(() => undefined);
    const id = lease?.spec?.holderIdentity;
    return id === undefined ? undefined : processes.find((p) => id.startsWith(`${p.name}_`));
  }

  /** Adds every meshd's output to a failure. */
  const explained = <T>(run: () => Promise<T>): Promise<T> => withMeshdLogs(processes, run);

  /** Object i: every 10th names a host meshd's semantic checks refuse; `fixed` drops that host. */
  function spec(i: number, version: number, fixed = false): Record<string, unknown> {
    const hosts = i % 10 === 0 && !fixed ? [`h${i}.example.com`, 'bad host!'] : [`h${i}.example.com`];
    return { hosts, http: [{ route: [{ destination: { host: `v${version}.example.com` } }] }] };
  }

  /** The Reconciled condition the object's current spec must end with. */
  function expected(o: VirtualServiceObject): { status: 'True' | 'False'; generation: number } {
    const accepted = validateConfig({ apiVersion: o.apiVersion, kind: o.kind, metadata: { ...o.metadata }, spec: o.spec }).ok;
    return { status: accepted ? 'True' : 'False', generation: o.metadata.generation ?? 1 };
  }

  async function update(name: string, body: Record<string, unknown>): Promise<void> {
    // NOTE: a status write may land between the read and the PUT; a conflict retries with a fresh read.
    await waitFor(`update of ${name}`, async () => {
      const current = await client.request<VirtualServiceObject>('GET', `${collection()}/${name}`);
      await client.request('PUT', `${collection()}/${name}`, { body: { ...current, spec: body } });
      return true;
    }, 30_000, 50);
  }

  it('given two meshd and a status backlog, should hand over on kill -9 and converge with no lost, duplicated or stale status write', async () => {
    const names = [uniqueName('meshd-a'), uniqueName('meshd-b')];
    const env = (podName: string): Record<string, string> => ({
      PILOT_ENABLE_STATUS: 'true',
      ENABLE_LEADER_ELECTION: 'true',
      POD_NAME: podName,
      PILOT_STATUS_QPS: '4',
      PILOT_STATUS_BURST: '1',
    });
    const started = await Promise.all(names.map((n) => MeshdProcess.start(e2eCluster().kubeconfigPath, namespace, env(n))));
    names.forEach((name, i) => processes.push({ name, meshd: started[i]! }));
    const leader = await explained(() => waitFor('one meshd to hold the status Lease', holderProcess, 30_000));
    const follower = processes.find((p) => p !== leader)!;

    // Every status write from here on, as the API server's watch reports it.
    const seen: SeenWrite[] = [];
    const last = new Map<string, string>();
    let watchEnded: string | undefined;
    const listed = await client.request<{ metadata: { resourceVersion: string } }>('GET', collection());
    watch = client.watch(collection(), { resourceVersion: listed.metadata.resourceVersion }).subscribe({
      next: (e: RawWatchEvent) => {
        if (e.type !== 'ADDED' && e.type !== 'MODIFIED') return;
        const name = (e.object['metadata'] as { name: string }).name;
        const c = reconciledOf(e.object);
        const text = JSON.stringify(c ?? null);
        if (c && last.get(name) !== text) seen.push({ name, at: performance.now(), condition: c });
        last.set(name, text);
      },
      error: (err: Error) => (watchEnded = `watch failed: ${err.message}`),
      complete: () => (watchEnded = 'watch ended early'),
    });
    const patchesBefore = statusPatchCounts(await client.requestText('GET', '/metrics'));

    const objectNames = Array.from({ length: OBJECTS }, (_, i) => `vs-${i}`);
    await Promise.all(objectNames.map((name, i) =>
      client.request('POST', collection(), { body: { apiVersion: `${VS.group}/${VS.storageVersion}`, kind: 'VirtualService', metadata: { name, namespace }, spec: spec(i, 1) } })));
    // Updates while the backlog drains: every 3rd object gets a generation 2.
    await explained(() => waitFor('the leader to write some statuses', () => seen.length >= 10, 60_000, 50));
    await Promise.all(objectNames.filter((_, i) => i % 3 === 0).map((name) => update(name, spec(Number(name.slice(3)), 2))));
    await explained(() => waitFor('the leader to write a quarter of the statuses', () => seen.length >= OBJECTS / 4, 60_000, 50));

    leader.meshd.child.kill('SIGKILL');
    const killedAt = performance.now();
    const writtenAtKill = seen.length;
    await new Promise((resolve) => (leader.meshd.child.exitCode !== null || leader.meshd.child.signalCode !== null ? resolve(undefined) : leader.meshd.child.once('exit', resolve)));
    // NOTE: read after the exit, so a renewal in flight at the kill has landed.
    const leaseAtKill = await client.request<LeaseObject>('GET', leasePath());
    assert.ok(leaseAtKill.spec?.holderIdentity?.startsWith(`${leader.name}_`), `the killed meshd must hold the Lease at the kill, held by ${leaseAtKill.spec?.holderIdentity}`);
    // While nobody leads: every 5th object changes again, and the refused ones among them are fixed.
    await Promise.all(objectNames.filter((_, i) => i % 5 === 0).map((name) => { const i = Number(name.slice(3)); return update(name, spec(i, 3, i % 20 === 0)); }));

    const { leaseDurationMs, retryPeriodMs } = DEFAULT_LEASE_TIMINGS;
    await explained(() => waitFor('the follower to take the status Lease', async () => (await holderProcess())?.name === follower.name, leaseDurationMs + 2 * retryPeriodMs * 1.2 + 10_000, 100));
    const takeoverMs = performance.now() - killedAt;
    // The Lease changed hands only after it expired: the new acquireTime is a lease duration or more after the
    // dead leader's last renewTime (both processes read one clock).
    const leaseAfter = await client.request<LeaseObject>('GET', leasePath());
    const expiredFor = Date.parse(leaseAfter.spec!.acquireTime!) - Date.parse(leaseAtKill.spec!.renewTime!);
    assert.ok(expiredFor >= leaseDurationMs, `the Lease was taken ${expiredFor} ms after the last renewal, before its ${leaseDurationMs} ms expired`);
    assert.equal(leaseAfter.spec?.leaseTransitions, (leaseAtKill.spec?.leaseTransitions ?? 0) + 1, 'one hand-over');
    const renewAgeAtKillMs = Date.now() - performance.now() + killedAt - Date.parse(leaseAtKill.spec!.renewTime!);

    let lastPending: string[] = [];
    await explained(() => waitFor('every object to carry the Reconciled condition of its final generation', async () => {
      const list = await client.request<{ items: VirtualServiceObject[] }>('GET', collection());
      lastPending = list.items.filter((o) => {
        const want = expected(o);
        const c = reconciledOf(o);
        return !(c?.status === want.status && Number(c.observedGeneration) === want.generation && Number(o.status?.observedGeneration) === want.generation);
      }).map((o) => o.metadata.name);
      return list.items.length === OBJECTS && lastPending.length === 0;
    }, 120_000, 250).catch((err: Error) => {
      throw new Error(`${err.message}; still pending: ${lastPending.slice(0, 10).join(', ')} (${lastPending.length})`);
    }));
    const convergedMs = performance.now() - killedAt;
    // NOTE: the watch delivers the last writes a moment after a list shows them.
    await explained(() => waitFor('the watch to see every final write', () => new Set(seen.map((w) => w.name)).size === OBJECTS, 30_000, 50));
    assert.equal(watchEnded, undefined);

    // No lost write: every object ended right (above). No duplicated or stale write: per object, each write
    // is for a newer generation than the one before it.
    const byObject = new Map<string, SeenWrite[]>();
    for (const w of seen) byObject.set(w.name, [...(byObject.get(w.name) ?? []), w]);
    const backwards = [...byObject].filter(([, ws]) => ws.some((w, k) => k > 0 && Number(w.condition.observedGeneration) <= Number(ws[k - 1]!.condition.observedGeneration)));
    assert.deepEqual(backwards.map(([n, ws]) => `${n}: ${ws.map((w) => `${w.condition.status}@${w.condition.observedGeneration}`).join(' ')}`), [], 'a second write for a generation, or one going back');
    // Every PATCH the API server took changed something the watch saw (a no-op rewrite would be counted but not seen).
    const patchesAfter = statusPatchCounts(await client.requestText('GET', '/metrics'));
    const delta = (code: string): number => (patchesAfter.get(code) ?? 0) - (patchesBefore.get(code) ?? 0);
    // NOTE: the one PATCH in flight when the leader was killed (PILOT_STATUS_QPS=4, burst 1) may be applied while its
    // response never reaches the killed client: the API server then counts it under another code, or not at all
    // (CI saw 128 successful PATCHes for 129 watched changes once). Every other watched change is a counted 200.
    assert.ok(delta('200') <= seen.length, `successful status PATCHes (${delta('200')}) must each be a status change watched (${seen.length})`);
    assert.ok(seen.length - delta('200') <= 1, `status changes watched (${seen.length}) beyond the successful PATCHes (${delta('200')}): at most the one in flight at the kill`);
    assert.ok(writtenAtKill < OBJECTS, 'the kill must come while writes were still pending');
    const afterKill = seen.filter((w) => w.at > killedAt);
    assert.ok(afterKill.length > 0, 'the new leader must have written');

    console.log(
      `      leader kill -9 survived: ${OBJECTS} objects, ${writtenAtKill} status writes before the kill, ${afterKill.length} after by the new leader; ` +
        `Lease taken ${(takeoverMs / 1000).toFixed(1)} s after the kill, ${(expiredFor / 1000).toFixed(1)} s after its last renewal (renewed ${(renewAgeAtKillMs / 1000).toFixed(1)} s before the kill; lease ${leaseDurationMs / 1000} s), all converged after ${(convergedMs / 1000).toFixed(1)} s; ` +
        `status PATCHes: ${delta('200')} ok, ${delta('409')} conflicts; 0 lost, 0 duplicated`,
    );
  });
});
