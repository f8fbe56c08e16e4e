import assert from 'node:assert/strict';
import { buildStatus, overallStatus, statusDiffers, statusPatch, type ComponentStatus, type InstallStatus } from './mesh-operator-status.js';

const T1 = new Date('2026-11-25T10:00:00.000Z');
const T2 = new Date('2026-11-25T11:00:00.000Z');

describe('MeshOperator status', () => {
  const cases: { name: string; components: Record<string, ComponentStatus>; want: InstallStatus }[] = [
    { name: 'given every component HEALTHY should be HEALTHY', components: { Base: { status: 'HEALTHY' }, Pilot: { status: 'HEALTHY' } }, want: 'HEALTHY' },
    { name: 'given one component RECONCILING should be RECONCILING', components: { Base: { status: 'HEALTHY' }, Pilot: { status: 'RECONCILING' } }, want: 'RECONCILING' },
    { name: 'given one component ERROR and one RECONCILING should be ERROR', components: { Base: { status: 'ERROR' }, Pilot: { status: 'RECONCILING' } }, want: 'ERROR' },
    { name: 'given no component should be HEALTHY', components: {}, want: 'HEALTHY' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(overallStatus(c.components), c.want));

  it('given a first HEALTHY outcome should carry observedGeneration on the status and a True Reconciled condition', () => {
    const s = buildStatus(undefined, { status: 'HEALTHY', message: '', components: { Pilot: { status: 'HEALTHY' } } }, 3, T1);
    assert.equal(s.observedGeneration, 3);
    assert.deepEqual(s.conditions, [{ type: 'Reconciled', status: 'True', reason: 'Healthy', message: '', observedGeneration: 3, lastTransitionTime: '2026-11-25T10:00:00Z' }]);
  });

  it('given the condition status unchanged should keep its lastTransitionTime, and given it changed should take the new time', () => {
    const first = buildStatus(undefined, { status: 'HEALTHY', message: '', components: {} }, 1, T1);
    const same = buildStatus(first, { status: 'HEALTHY', message: '', components: {} }, 2, T2);
    assert.equal(same.conditions[0]?.lastTransitionTime, '2026-11-25T10:00:00Z');
    const changed = buildStatus(first, { status: 'ERROR', message: 'bad', components: {} }, 2, T2);
    assert.equal(changed.conditions[0]?.lastTransitionTime, '2026-11-25T11:00:00Z');
    assert.equal(changed.conditions[0]?.status, 'False');
    assert.equal(changed.conditions[0]?.reason, 'Error');
  });

  it('given the live status equal to the next one (as JSON) should not differ, and given another generation should differ', () => {
    const next = buildStatus(undefined, { status: 'HEALTHY', message: '', components: { Base: { status: 'HEALTHY' } } }, 1, T1);
    assert.equal(statusDiffers(JSON.parse(JSON.stringify(next)), next), false);
    assert.equal(statusDiffers(JSON.parse(JSON.stringify(next)), buildStatus(next, { status: 'HEALTHY', message: '', components: { Base: { status: 'HEALTHY' } } }, 2, T1)), true);
    assert.equal(statusDiffers(undefined, next), true);
  });

  it('given a component the live status has and the next one lacks should set it to null in the merge patch', () => {
    const live = buildStatus(undefined, { status: 'HEALTHY', message: '', components: { Base: { status: 'HEALTHY' }, EgressGateways: { status: 'HEALTHY' } } }, 1, T1);
    const next = buildStatus(live, { status: 'HEALTHY', message: '', components: { Base: { status: 'HEALTHY' } } }, 2, T1);
    assert.deepEqual(statusPatch(live, next).status['componentStatus'], { Base: { status: 'HEALTHY', error: null }, EgressGateways: null });
  });

  it('given a component that had an error and is now HEALTHY should null the error in the merge patch', () => {
    const live = buildStatus(undefined, { status: 'RECONCILING', message: 'x', components: { Pilot: { status: 'RECONCILING', error: 'Deployment a/b: 0/1 replicas available' } } }, 1, T1);
    const next = buildStatus(live, { status: 'HEALTHY', message: '', components: { Pilot: { status: 'HEALTHY' } } }, 1, T1);
    assert.deepEqual(statusPatch(live, next).status['componentStatus'], { Pilot: { status: 'HEALTHY', error: null } });
  });
});
