import assert from 'node:assert/strict';
import { editServerPhases, parsePushSent } from './server-phases.js';

describe('bench:xds server phases (push sent lines)', () => {
  const at = Date.parse('2026-11-25T21:43:32.000Z') + 0.25;
  const fields = { token: 12, full: false, proxies: 2000, responses: 2000, bytes: 1_150_000, publishedMs: 101.5, firstWriteMs: 102, lastWriteMs: 160.2, lastFlushMs: 170, unflushed: 0, atMs: 171 };
  const want = {
    token: 12, full: false, proxies: 2000, responses: 2000, bytes: 1_150_000,
    changeAt: at - 171, publishedAt: at - 171 + 101.5, lastWriteAt: at - 171 + 160.2, lastFlushAt: at - 171 + 170,
  };
  const kv = Object.entries(fields).map(([k, v]) => `${k}=${v}`).join(' ');
  const cases: { name: string; line: string; want: typeof want | undefined }[] = [
    { name: 'given a console line should place the change on the wall clock from its time and atMs', line: `2026-11-25T21:43:32.000250Z\tinfo\tads\tpush sent\t${kv}`, want },
    { name: 'given a JSON line should read the same fields', line: JSON.stringify({ time: '2026-11-25T21:43:32.000250Z', level: 'info', scope: 'ads', msg: 'push sent', ...fields }), want },
    { name: 'given another line should ignore it', line: `2026-11-25T21:43:32.000250Z\tinfo\tads\tpush\tfull=false configs=1`, want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = parsePushSent(c.line);
      if (c.want === undefined) return assert.equal(got, undefined);
      assert.ok(got);
      for (const [k, v] of Object.entries(c.want)) assert.ok(Math.abs((got[k as keyof typeof got] as number) - (v as number)) < 0.01 || got[k as keyof typeof got] === v, `${k}: ${String(got[k as keyof typeof got])} != ${String(v)}`);
    });
  }

  it('given pushes before and after the write should report the phases of the largest push after it, in ms from the write', () => {
    const push = parsePushSent(`2026-11-25T21:43:32.000250Z\tinfo\tads\tpush sent\t${kv}`)!;
    const small = { ...push, responses: 3, publishedAt: push.publishedAt + 500 };
    const earlier = { ...push, responses: 9000, publishedAt: push.changeAt - 1000 };
    const writeAt = push.changeAt - 20;
    assert.deepEqual(editServerPhases(writeAt, [earlier, push, small]), {
      changeSeenMs: 20, publishedMs: 121.5, lastWriteMs: 180.2, lastFlushMs: 190, pushes: 2, responses: 2000,
    });
    assert.equal(editServerPhases(push.publishedAt + 1, [push]), undefined);
  });
});
