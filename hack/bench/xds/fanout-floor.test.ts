import assert from 'node:assert/strict';
import { FANOUT_DEFAULTS, parseFanoutArgs, runFanoutFloor } from './fanout-floor.js';

describe('bench:fanout (the fan-out floor)', () => {
  const cases: { name: string; argv: string[]; want: Partial<typeof FANOUT_DEFAULTS>; json?: string }[] = [
    { name: 'given no flags should measure the S=1000/N=2000 endpoint push (2,000 streams, 600 B)', argv: [], want: FANOUT_DEFAULTS },
    {
      name: 'given sizes, workers, replies off and a slice should use them',
      argv: ['--streams', '50', '--bytes', '100', '--workers', '3', '--ack-bytes', '0', '--slice', '10', '--json', '/tmp/x.json'],
      want: { streams: 50, bytes: 100, workers: 3, ackBytes: 0, slice: 10 },
      json: '/tmp/x.json',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = parseFanoutArgs(c.argv);
      assert.deepEqual(got.options, { ...FANOUT_DEFAULTS, ...c.want });
      assert.equal(got.json, c.json);
    });
  }

  for (const [argv, names] of [
    [['--streams', '0'], /--streams: expected an integer >= 1, got "0"/],
    [['--bogus', '1'], /unknown flag "--bogus"/],
    [['--rounds'], /--rounds: missing value/],
  ] as const) {
    it(`given ${argv.join(' ')} should refuse it naming the flag`, () => {
      assert.throws(() => parseFanoutArgs(argv), names);
    });
  }

  it('given 30 streams over 2 client workers should time every receipt of every round after the first write', async () => {
    const r = await runFanoutFloor({ streams: 30, bytes: 600, rounds: 2, workers: 2, ackBytes: 50, slice: 7 });
    assert.equal(r.rounds.length, 2);
    for (const round of r.rounds) {
      assert.equal(round.arrivalMs.n, 30);
      assert.ok(round.arrivalMs.min! >= 0, 'a receipt before the first write');
      assert.ok(round.lastCallbackMs >= 0 && round.writeLoopMs >= 0);
    }
  });
});
