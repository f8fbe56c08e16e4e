import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startCaFuzzSurface, type CaFuzzSurface } from '../testing/ca-fuzz-surface.js';

// NOTE: the seeded CI share of the CA fuzz surface; `npm run fuzz -- --surface ca` is the big run.
describe('CertificateService under fuzzing (seeded share)', function () {
  this.timeout(180_000);
  let s: CaFuzzSurface | undefined;
  after(async () => {
    await s?.close();
  });

  it('given 300 seeded hostile CSRs, tokens and client certificates should issue or refuse each with a CaRefusal naming the check, and still issue to a good caller', async () => {
    s = await startCaFuzzSurface();
    const surface = s;
    const reasons = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(surface.arbitrary, async (input) => {
        const r = await surface.check(input);
        reasons.set(r, (reasons.get(r) ?? 0) + 1);
      }),
      { seed: 19_25, numRuns: 300 },
    );
    await surface.healthy();
    assert.ok((reasons.get('accepted') ?? 0) > 0, `some requests were issued: ${[...reasons.keys()].join(' | ')}`);
    assert.ok(reasons.size > 8, `refusals of many kinds: ${[...reasons.keys()].join(' | ')}`);
  });
});
