import assert from 'node:assert/strict';
import { shardStart } from './fuzz-inputs.js';
import { fuzzSurface, parseFuzzArgs } from './fuzz-run.js';

describe('npm run fuzz', function () {
  this.timeout(120_000);

  it('given --concurrency and --workers should parse them, and default to one input at a time on one worker', () => {
    assert.equal(parseFuzzArgs(['--concurrency', '8']).concurrency, 8);
    assert.equal(parseFuzzArgs(['--workers', '2']).workers, 2);
    assert.equal(parseFuzzArgs([]).concurrency, 1);
    assert.equal(parseFuzzArgs([]).workers, 1);
    assert.throws(() => parseFuzzArgs(['--concurrency', '0']), /--concurrency 0: want a positive integer/);
    assert.throws(() => parseFuzzArgs(['--workers', '-1']), /--workers -1: want a positive integer/);
  });

  const starts = [
    { i: 0, shard: 0, want: 0 },
    { i: 0, shard: 1, want: 25 },
    { i: 26, shard: 1, want: 26 },
    { i: 50, shard: 1, want: 100 },
    { i: 49, shard: 0, want: 75 },
    { i: 74, shard: 2, want: 74 },
    { i: 75, shard: 2, want: 125 },
  ];
  for (const c of starts) {
    it(`given index ${c.i} and shard ${c.shard} of 3 (batches of 25) should go on at ${c.want}`, () => {
      assert.equal(shardStart(c.i, 25, c.shard, 3), c.want);
    });
  }

  const surfaces = [
    { surface: 'webhooks', concurrency: 6, workers: 1 },
    { surface: 'xds', concurrency: 6, workers: 1 },
    { surface: 'xds', concurrency: 4, workers: 2 },
  ] as const;
  for (const c of surfaces) {
    it(`given the ${c.surface} surface with ${c.concurrency} inputs in flight on ${c.workers} worker(s) should check every input once, with no false crash or hang`, async () => {
      const opts = { ...parseFuzzArgs(['--surface', c.surface, '--runs', '60', '--batch', '25', '--concurrency', String(c.concurrency), '--workers', String(c.workers)]) };
      const r = await fuzzSurface(c.surface, opts);
      assert.deepEqual([...r.crashes, ...r.hangs], []);
      assert.equal(r.inputs, 60);
      assert.equal(r.accepted + [...r.refusals.values()].reduce((a, b) => a + b, 0), 60, 'every input has one outcome');
    });
  }

  it('given 2 workers should give each batch to one of them: the same outcomes as one worker', async () => {
    const run = async (workers: number): Promise<Record<string, number>> => {
      const r = await fuzzSurface('config', parseFuzzArgs(['--surface', 'config', '--runs', '230', '--batch', '25', '--workers', String(workers)]));
      return Object.fromEntries([['accepted', r.accepted], ['inputs', r.inputs], ...[...r.refusals].sort()]);
    };
    assert.deepEqual(await run(2), await run(1));
  });
});
