import assert from 'node:assert/strict';
import { defaultRequestLimit } from '../../../xds/index.js';
import { admissionRate, buckets } from './restart-phase.js';

describe('bench:xds --restart arithmetic', () => {
  const cases: { name: string; times: number[]; bucketMs: number; want: number[] }[] = [
    { name: 'nothing', times: [], bucketMs: 5000, want: [] },
    { name: 'one per interval with a gap', times: [0, 4999, 12_000], bucketMs: 5000, want: [2, 0, 1] },
    { name: 'a time before ready in the first interval', times: [-20, 10], bucketMs: 1000, want: [2] },
  ];
  for (const c of cases) {
    it(`given ${c.name}, should count the times per interval`, () => {
      assert.deepEqual(buckets(c.times, c.bucketMs), c.want);
    });
  }

  it('given PILOT_MAX_REQUESTS_PER_SECOND in --server-env or the environment, should report it; else the derived rate', () => {
    assert.equal(admissionRate({ serverEnv: { PILOT_MAX_REQUESTS_PER_SECOND: '7' } }, {}), 7);
    assert.equal(admissionRate({ serverEnv: {} }, { PILOT_MAX_REQUESTS_PER_SECOND: '12' }), 12);
    assert.equal(admissionRate({ serverEnv: {} }, {}), defaultRequestLimit());
  });
});
