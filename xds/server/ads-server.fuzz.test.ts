import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startAdsFuzzSurface, type AdsFuzzSurface } from '../testing/ads-fuzz-surface.js';

// NOTE: the seeded CI share of the xDS fuzz surface; `npm run fuzz -- --surface xds` is the big run.
describe('ADS (SotW and delta) under fuzzing (seeded share)', function () {
  this.timeout(180_000);
  let s: AdsFuzzSurface | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('given 200 seeded hostile request sequences should answer or refuse each with a clear status, log no error, and still serve a good client', async () => {
    s = await startAdsFuzzSurface();
    const surface = s;
    const reasons = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(surface.arbitrary, async (input) => {
        const r = await surface.check(input);
        reasons.set(r, (reasons.get(r) ?? 0) + 1);
      }),
      { seed: 19_25, numRuns: 200 },
    );
    await surface.healthy();
    assert.ok((reasons.get('accepted') ?? 0) > 0, 'some sequences were answered');
    assert.ok([...reasons.keys()].some((k) => k.startsWith('INVALID_ARGUMENT')), `some were refused: ${[...reasons.keys()].join(' | ')}`);
  });
});
