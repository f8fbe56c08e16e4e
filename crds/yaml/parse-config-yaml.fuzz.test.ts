import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkConfigInput, configFuzzArbitrary } from '../testing/config-fuzz-surface.js';

// NOTE: the seeded CI share of the config fuzz surface; `npm run fuzz -- --surface config` is the big run.
describe('mesh.io YAML and validators under fuzzing (seeded share)', function () {
  this.timeout(120_000);
  it('given 400 seeded hostile and valid inputs should never throw, and refuse each bad one with a clear one-line error', () => {
    const reasons = new Map<string, number>();
    fc.assert(
      fc.property(configFuzzArbitrary(), (input) => {
        const r = checkConfigInput(input);
        reasons.set(r, (reasons.get(r) ?? 0) + 1);
      }),
      { seed: 19_25, numRuns: 400 },
    );
    assert.ok((reasons.get('accepted') ?? 0) > 0, 'some inputs were accepted (the arbitrary reaches valid configs)');
    assert.ok(reasons.size > 10, `refusals of many kinds (got ${reasons.size})`);
  });
});
