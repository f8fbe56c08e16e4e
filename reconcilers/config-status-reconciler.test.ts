import assert from 'node:assert/strict';
import { Subject } from 'rxjs';
import { ManualClock } from '../core/index.js';
import type { OrchRequestOptions, OrchTransport } from '../controllers/index.js';
import { ConfigStatusReconciler, reconciledCondition, type StatusCondition } from './config-status-reconciler.js';
import { settle } from './testing/settle.js';
import type { ConfigStatusReport } from './config-status-report.js';

const NOW = new Date('2026-01-02T03:04:05.678Z');
const key = { kind: 'VirtualService', namespace: 'ns', name: 'vs' };
const accepted = (generation: number): ConfigStatusReport => ({ key, generation, outcome: { accepted: true } });
const rejected = (generation: number, message: string): ConfigStatusReport => ({ key, generation, outcome: { accepted: false, message } });
const trueCondition: StatusCondition = {
  type: 'Reconciled', status: 'True', observedGeneration: 1, reason: 'Accepted', message: 'configuration accepted', lastTransitionTime: '2025-12-31T00:00:00Z',
};

describe('reconciledCondition', () => {
  const cases: { name: string; existing?: StatusCondition; report: ConfigStatusReport; want: StatusCondition | undefined }[] = [
    {
      name: 'given no condition and an accepted report, should set True now',
      report: accepted(1),
      want: { ...trueCondition, lastTransitionTime: '2026-01-02T03:04:05Z' },
    },
    { name: 'given the same condition, should write nothing', existing: trueCondition, report: accepted(1), want: undefined },
    {
      name: 'given a newer generation still accepted, should move observedGeneration and keep the transition time',
      existing: trueCondition,
      report: accepted(2),
      want: { ...trueCondition, observedGeneration: 2 },
    },
    {
      name: 'given a rejection, should flip to False with the message and a new transition time',
      existing: trueCondition,
      report: rejected(2, 'spec.http[0].route: at least one route is required'),
      want: {
        type: 'Reconciled', status: 'False', observedGeneration: 2, reason: 'Rejected',
        message: 'spec.http[0].route: at least one route is required', lastTransitionTime: '2026-01-02T03:04:05Z',
      },
    },
    {
      name: 'given an observedGeneration stored as a string, should compare it as a number',
      existing: { ...trueCondition, observedGeneration: '1' },
      report: accepted(1),
      want: undefined,
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(reconciledCondition(c.existing, c.report, NOW), c.want));
});

describe('ConfigStatusReconciler on a manual clock', () => {
  it('given two reports at 1 write per second, should write the first at once and the second a second later, each dated by the clock', async () => {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    const patches: { path: string; at: number; condition: StatusCondition }[] = [];
    const client: OrchTransport = {
      request: <T>(method: string, path: string, options: OrchRequestOptions = {}): Promise<T> => {
        if (method === 'GET') return Promise.resolve({ metadata: { generation: 1, resourceVersion: '7' }, status: { conditions: [] } } as T);
        const body = options.body as { status: { conditions: StatusCondition[] } };
        patches.push({ path, at: clock.now(), condition: body.status.conditions[0]! });
        return Promise.resolve({} as T);
      },
      watch: () => {
        throw new Error('not used');
      },
    };
    const reports$ = new Subject<ConfigStatusReport>();
    const reconciler = new ConfigStatusReconciler({ client, reports$, qps: 1, burst: 1, maxWorkers: 2, clock });
    reconciler.attach();
    reconciler.start();
    reports$.next({ key: { kind: 'VirtualService', namespace: 'ns', name: 'a' }, generation: 1, outcome: { accepted: true } });
    reports$.next({ key: { kind: 'VirtualService', namespace: 'ns', name: 'b' }, generation: 1, outcome: { accepted: true } });
    await settle();
    assert.deepEqual(patches.map((p) => [p.path.replace(/.*\/virtualservices\//, ''), p.at]), [['a/status', 0]]);
    assert.deepEqual(clock.timersDueIn(), [1000], 'the second write waits for a token');
    await clock.advance(1000);
    assert.deepEqual(patches.map((p) => [p.path.replace(/.*\/virtualservices\//, ''), p.at]), [['a/status', 0], ['b/status', 1000]]);
    assert.equal(patches[0]!.condition.lastTransitionTime, '2030-01-01T00:00:00Z');
    assert.equal(patches[1]!.condition.lastTransitionTime, '2030-01-01T00:00:00Z', 'dated when its reconcile read the object');
    await reconciler.stop();
    reconciler.detach();
  });
});
