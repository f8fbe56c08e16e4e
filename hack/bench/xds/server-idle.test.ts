import assert from 'node:assert/strict';
import { waitServerIdle } from './server-idle.js';

/** A server on a fake clock that uses `busyShare` of a core until `busyUntil` ms, then `idleShare`. */
function fakeServer(busyUntil: number, busyShare: number, idleShare = 0): { now: () => number; sleep: (ms: number) => Promise<void>; cpuSeconds: () => number } {
  let t = 0;
  const cpuAt = (ms: number): number => (Math.min(ms, busyUntil) * busyShare + Math.max(0, ms - busyUntil) * idleShare) / 1000;
  return {
    now: () => t,
    sleep: (ms) => {
      t += ms;
      return Promise.resolve();
    },
    cpuSeconds: () => cpuAt(t),
  };
}

describe('bench:xds waiting for the server to go idle', () => {
  it('given a server busy on a whole core for 5 s, should wait until a full window after that, and count its CPU', async () => {
    const s = fakeServer(5000, 1);
    const r = await waitServerIdle({ ...s, deadline: 60_000, windowMs: 1000, pollMs: 100, share: 0.1 });
    assert.equal(r.idle, true);
    // NOTE: the first window with under 0.1 s of CPU ends 1 s after the busy stretch less its last 0.1 s.
    assert.ok(r.waitedMs > 5000 && r.waitedMs <= 6000, `waited ${r.waitedMs} ms`);
    assert.ok(Math.abs(r.cpuSeconds - 5) < 1e-9, `cpu ${r.cpuSeconds} s`);
  });

  it('given an idle server, should return after one window', async () => {
    const s = fakeServer(0, 1);
    const r = await waitServerIdle({ ...s, deadline: 60_000, windowMs: 1000, pollMs: 100 });
    assert.deepEqual(r, { idle: true, waitedMs: 1000, cpuSeconds: 0 });
  });

  it('given a server that never settles, should give up at the deadline and say so', async () => {
    const s = fakeServer(Number.POSITIVE_INFINITY, 0.5);
    const r = await waitServerIdle({ ...s, deadline: 3000, windowMs: 1000, pollMs: 100 });
    assert.equal(r.idle, false);
    assert.equal(r.waitedMs, 3000);
  });

  it('given a server idling at just over the share, should not call it idle', async () => {
    const s = fakeServer(0, 1, 0.12);
    const r = await waitServerIdle({ ...s, deadline: 5000, windowMs: 1000, pollMs: 100, share: 0.1 });
    assert.equal(r.idle, false);
  });
});
