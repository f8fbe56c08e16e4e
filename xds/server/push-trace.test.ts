import assert from 'node:assert/strict';
import { ManualClock, proxyRequestPush, pushRequest, withSnapshot, type PushRequest, type PushSnapshot } from '../../core/index.js';
import { PushTraces, type PushTraceSummary } from './push-trace.js';

/** A push of snapshot `token` whose change entered the model at `start`; only the token of the snapshot is read. */
function pushOf(token: number, start: number, clock: ManualClock): PushRequest {
  return withSnapshot(pushRequest('endpoint', { full: false, start }, clock), { token } as unknown as PushSnapshot);
}

describe('PushTraces', () => {
  it('given a push written to three proxies should report its phases from the change once the queue is idle and every write completed', () => {
    const clock = new ManualClock();
    const got: PushTraceSummary[] = [];
    const traces = new PushTraces(clock, (s) => got.push(s));
    const push = pushOf(7, clock.now(), clock);
    clock.advanceSync(100);
    traces.begin(push, 3);
    clock.advanceSync(5);
    const flushes = [traces.wrote(push, 600), traces.wrote(push, 600)];
    clock.advanceSync(10);
    flushes.push(traces.wrote(push, 500));
    clock.advanceSync(20);
    flushes[0]!();
    flushes[1]!();
    traces.idle();
    assert.deepEqual(got, [], 'reported while a write was outstanding');
    clock.advanceSync(15);
    flushes[2]!();
    flushes[2]!();
    assert.deepEqual(got, [
      { token: 7, full: false, proxies: 3, responses: 3, bytes: 1700, publishedMs: 100, firstWriteMs: 105, lastWriteMs: 115, lastFlushMs: 150, unflushed: 0, atMs: 150 },
    ]);
  });

  it("given a proxy's own request should not follow it", () => {
    const clock = new ManualClock(0);
    const got: PushTraceSummary[] = [];
    const traces = new PushTraces(clock, (s) => got.push(s));
    const own = proxyRequestPush({ token: 3 } as unknown as PushSnapshot, clock);
    traces.begin(own, 1);
    assert.equal(traces.wrote(own, 10), undefined);
    traces.idle();
    assert.deepEqual(got, []);
  });

  it('given more pushes than it follows at once should report the oldest as it stands, naming its unflushed writes', () => {
    const clock = new ManualClock(0);
    const got: PushTraceSummary[] = [];
    const traces = new PushTraces(clock, (s) => got.push(s));
    const first = pushOf(1, 0, clock);
    traces.begin(first, 1);
    traces.wrote(first, 10);
    for (let t = 2; t <= 9; t++) traces.begin(pushOf(t, 0, clock), 1);
    assert.equal(got.length, 1);
    assert.equal(got[0]!.token, 1);
    assert.equal(got[0]!.unflushed, 1);
    assert.equal(got[0]!.lastFlushMs, undefined);
  });
});
