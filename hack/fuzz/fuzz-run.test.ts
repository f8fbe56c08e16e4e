import assert from 'node:assert/strict';
import { fuzzSurface, parseFuzzArgs } from './fuzz-run.js';

describe('npm run fuzz', function () {
  this.timeout(120_000);

  it('given --concurrency should parse it, and default to one input at a time', () => {
    assert.equal(parseFuzzArgs(['--concurrency', '8']).concurrency, 8);
    assert.equal(parseFuzzArgs([]).concurrency, 1);
    assert.throws(() => parseFuzzArgs(['--concurrency', '0']), /--concurrency 0: want a positive integer/);
  });

  const surfaces = [
    { surface: 'webhooks', concurrency: 6 },
    { surface: 'xds', concurrency: 6 },
  ] as const;
  for (const c of surfaces) {
    it(`given the ${c.surface} surface with ${c.concurrency} inputs in flight should check every input once, with no false crash or hang`, async () => {
      const opts = { ...parseFuzzArgs(['--surface', c.surface, '--runs', '60', '--batch', '25', '--concurrency', String(c.concurrency)]) };
      const r = await fuzzSurface(c.surface, opts);
      assert.deepEqual([...r.crashes, ...r.hangs], []);
      assert.equal(r.inputs, 60);
      assert.equal(r.accepted + [...r.refusals.values()].reduce((a, b) => a + b, 0), 60, 'every input has one outcome');
    });
  }
});
