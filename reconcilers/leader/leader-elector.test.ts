import assert from 'node:assert/strict';
import { ManualClock } from '../../core/index.js';
import { FakeObjectStore, type TransportMode } from '../testing/fake-object-store.js';
import { LeaderElector, leaderIdentity, type LeaderTask } from './leader-elector.js';

const LEASE_PATH = '/apis/coordination.k8s.io/v1/namespaces/mesh-system/leases/mesh-status-leader';

interface Candidate {
  readonly elector: LeaderElector;
  readonly log: string[];
  mode: TransportMode;
}

describe('LeaderElector', () => {
  let clock: ManualClock;
  let store: FakeObjectStore;
  let candidates: Candidate[];
  /** How many candidates lead at once, sampled at every change; must never exceed 1. */
  let maxLeaders: number;

  function candidate(identity: string): Candidate {
    const c: Candidate = { elector: undefined as unknown as LeaderElector, log: [], mode: 'ok' };
    const elector = new LeaderElector({
      client: store.transport(() => c.mode, clock),
      namespace: 'mesh-system',
      name: 'mesh-status-leader',
      identity,
      clock,
      random: () => 0.5,
    });
    const task: LeaderTask = {
      start: () => {
        c.log.push('start');
      },
      stop: async () => {
        c.log.push('stop');
      },
    };
    elector.runWhileLeading(task);
    elector.leading$.subscribe(() => {
      maxLeaders = Math.max(maxLeaders, candidates.filter((x) => x.elector?.isLeader).length);
    });
    (c as { elector: LeaderElector }).elector = elector;
    candidates.push(c);
    return c;
  }

  const leaders = (): string[] => candidates.filter((c) => c.elector.isLeader).map((c) => c.elector.identity);

  beforeEach(() => {
    clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    store = new FakeObjectStore();
    candidates = [];
    maxLeaders = 0;
  });

  afterEach(async () => {
    for (const c of candidates) {
      c.mode = 'ok';
      const stopped = c.elector.stop();
      await clock.advance(0);
      await stopped;
    }
  });

  it('given no lease, should create it, lead, start the leader-only tasks and renew at clock times', async () => {
    const a = candidate('meshd-0_aaaa');
    a.elector.start();
    await clock.advance(0);
    assert.deepEqual(leaders(), ['meshd-0_aaaa']);
    assert.deepEqual(a.log, ['start']);
    const lease = store.get(LEASE_PATH) as unknown as { spec: Record<string, unknown> };
    assert.equal(lease.spec['holderIdentity'], 'meshd-0_aaaa');
    assert.equal(lease.spec['leaseDurationSeconds'], 15);
    assert.equal(lease.spec['acquireTime'], '2030-01-01T00:00:00.000000Z');
    assert.equal(lease.spec['renewTime'], '2030-01-01T00:00:00.000000Z');
    await clock.advance(2000);
    const renewed = store.get(LEASE_PATH) as unknown as { spec: Record<string, unknown> };
    assert.equal(renewed.spec['acquireTime'], '2030-01-01T00:00:00.000000Z');
    assert.equal(renewed.spec['renewTime'], '2030-01-01T00:00:02.000000Z', 'renewed one retry period later');
  });

  it('given two candidates, should let exactly one lead while the leader keeps renewing', async () => {
    const a = candidate('a');
    const b = candidate('b');
    a.elector.start();
    b.elector.start();
    for (let i = 0; i < 30; i += 1) await clock.advance(1000);
    assert.equal(leaders().length, 1);
    assert.equal(maxLeaders, 1);
    assert.deepEqual(b.log, []);
    assert.ok(store.writes.filter((w) => w.startsWith('PUT')).length >= 10, 'the leader must renew');
  });

  it('given the leader is cut off, should step down after the renew deadline and the other should take over, never both', async () => {
    const a = candidate('a');
    const b = candidate('b');
    a.elector.start();
    await clock.advance(0);
    b.elector.start();
    await clock.advance(5000);
    a.mode = 'fail';
    for (let i = 0; i < 40 && !b.elector.isLeader; i += 1) await clock.advance(500);
    assert.deepEqual(leaders(), ['b']);
    assert.deepEqual(a.log, ['start', 'stop']);
    assert.deepEqual(b.log, ['start']);
    assert.equal(maxLeaders, 1);
    assert.equal((store.get(LEASE_PATH) as unknown as { spec: { leaseTransitions: number } }).spec.leaseTransitions, 1);
  });

  it('given the leader fails to renew and then its request hangs, should step down by the renew deadline, before the other can take over', async () => {
    const a = candidate('a');
    const b = candidate('b');
    a.elector.start();
    await clock.advance(0);
    b.elector.start();
    await clock.advance(5000);
    a.mode = 'fail';
    // Renewed last at 4 s; attempts at 6, 8 and 10 s fail; the one at 12 s hangs with 2 s of deadline left.
    await clock.advance(6000);
    assert.equal(a.elector.isLeader, true, 'still within the renew deadline');
    a.mode = 'hang';
    for (let i = 0; i < 60 && !b.elector.isLeader; i += 1) await clock.advance(250);
    assert.deepEqual(leaders(), ['b']);
    assert.equal(maxLeaders, 1, 'a hung renew must not keep the old leader leading after the lease expired');
    assert.deepEqual(a.log, ['start', 'stop']);
  });

  it('given the leader stops cleanly, should release the lease so the other takes over before the lease would expire', async () => {
    const a = candidate('a');
    const b = candidate('b');
    a.elector.start();
    await clock.advance(0);
    b.elector.start();
    await clock.advance(3000);
    const stopped = a.elector.stop();
    await clock.advance(0);
    await stopped;
    assert.deepEqual(a.log, ['start', 'stop']);
    assert.equal((store.get(LEASE_PATH) as unknown as { spec: { holderIdentity: string } }).spec.holderIdentity, '');
    const releasedAt = clock.now();
    for (let i = 0; i < 40 && !b.elector.isLeader; i += 1) await clock.advance(100);
    assert.deepEqual(leaders(), ['b']);
    assert.ok(clock.now() - releasedAt < 15_000, 'a released lease must not wait for the lease duration');
  });

  const badTimings = [
    { name: 'given a renew deadline longer than the lease, should refuse', leaseDurationMs: 10_000, renewDeadlineMs: 15_000, retryPeriodMs: 2000 },
    { name: 'given a retry period too close to the renew deadline, should refuse', leaseDurationMs: 15_000, renewDeadlineMs: 2000, retryPeriodMs: 2000 },
  ];
  for (const c of badTimings) {
    it(c.name, () => {
      assert.throws(
        () => new LeaderElector({ ...c, client: store.transport(), namespace: 'ns', name: 'x', identity: 'i' }),
        /leader election x: needs leaseDuration > renewDeadline > 1.2 \* retryPeriod/,
      );
    });
  }

  it('given a pod name, should make an identity of the pod name and a random suffix', () => {
    const one = leaderIdentity('meshd-7d9f');
    assert.match(one, /^meshd-7d9f_[0-9a-f]{8}$/);
    assert.notEqual(one, leaderIdentity('meshd-7d9f'));
  });
});
