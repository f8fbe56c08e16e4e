import assert from 'node:assert/strict';
import { parsePodTarget, type PodTarget } from './pod-target.js';
import { pickRunningPod, selectorQuery, type PodObject } from './pod-resolver.js';
import { ReachError } from './reach-error.js';

describe('parsePodTarget', () => {
  const ok: { text: string; want: PodTarget }[] = [
    { text: 'productpage-v1-abc', want: { kind: 'pod', name: 'productpage-v1-abc', namespace: 'dflt' } },
    { text: 'productpage-v1-abc.bookinfo', want: { kind: 'pod', name: 'productpage-v1-abc', namespace: 'bookinfo' } },
    { text: 'pod/p.ns', want: { kind: 'pod', name: 'p', namespace: 'ns' } },
    { text: 'deployment/reviews-v1.bookinfo', want: { kind: 'deployment', name: 'reviews-v1', namespace: 'bookinfo' } },
    { text: 'deploy/reviews-v1', want: { kind: 'deployment', name: 'reviews-v1', namespace: 'dflt' } },
    { text: 'svc/ratings', want: { kind: 'service', name: 'ratings', namespace: 'dflt' } },
    { text: 'Service/ratings.x', want: { kind: 'service', name: 'ratings', namespace: 'x' } },
  ];
  for (const c of ok) {
    it(`given "${c.text}" should parse ${c.want.kind} ${c.want.name} in ${c.want.namespace}`, () => {
      assert.deepEqual(parsePodTarget(c.text, 'dflt'), c.want);
    });
  }
  const bad: { text: string; error: RegExp }[] = [
    { text: 'statefulset/x', error: /target "statefulset\/x": unknown type "statefulset"/ },
    { text: 'svc/', error: /target "svc\/": "" is not a valid service name/ },
    { text: 'Pod_1', error: /"Pod_1" is not a valid pod name/ },
    { text: 'p.', error: /target "p.": "" is not a valid namespace/ },
  ];
  for (const c of bad) {
    it(`given "${c.text}" should throw a ReachError naming the target`, () => {
      assert.throws(() => parsePodTarget(c.text, 'dflt'), (e: unknown) => e instanceof ReachError && c.error.test(e.message));
    });
  }
});

describe('pickRunningPod', () => {
  const pod = (name: string, phase: string, ready: boolean, created = '2026-01-01T00:00:00Z', deleting = false): PodObject => ({
    metadata: { name, creationTimestamp: created, ...(deleting ? { deletionTimestamp: created } : {}) },
    status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  });
  it('given running, pending and terminating pods should pick a ready running one, newest first', () => {
    const picked = pickRunningPod(
      [pod('a', 'Pending', false), pod('b', 'Running', false), pod('c', 'Running', true, '2026-01-01T00:00:00Z'), pod('d', 'Running', true, '2026-02-01T00:00:00Z'), pod('e', 'Running', true, '2026-03-01T00:00:00Z', true)],
      'service s.ns',
    );
    assert.equal(picked.metadata?.name, 'd');
  });
  it('given no pods should say none match the selecting object', () => {
    assert.throws(() => pickRunningPod([], 'service reviews.default'), /^ReachError: no pods match service reviews.default$/);
  });
  it('given only pending pods should say none runs and show the phases', () => {
    assert.throws(() => pickRunningPod([pod('a', 'Pending', false)], 'deployment r.ns'), /no running pod matches deployment r.ns \(1 matching, phase Pending\)/);
  });
});

describe('selectorQuery', () => {
  it('given labels and expressions should write the API server query syntax', () => {
    assert.equal(
      selectorQuery({ matchLabels: { app: 'r', v: '1' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['a', 'b'] }, { key: 'x', operator: 'DoesNotExist' }] }),
      'app=r,v=1,k in (a,b),!x',
    );
  });
  it('given an empty selector should return undefined (selects nothing to reach)', () => {
    assert.equal(selectorQuery({}), undefined);
  });
});
