import assert from 'node:assert/strict';
import { reconciledCondition, type StatusCondition } from './config-status-reconciler.js';
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
