import { strict as assert } from 'node:assert';
import { listenHttp, type HttpListener } from './listen.js';
import { limitHttpWork, WorkLimiter } from './work-limiter.js';

/** Polls `check` until it holds, failing after `ms`. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('WorkLimiter', () => {
  it('given more work than slots and queue should run up to the limit, queue the next in order and refuse the rest', async () => {
    const limiter = new WorkLimiter({ maxConcurrent: 2, maxQueued: 2 });
    const slots = Array.from({ length: 6 }, () => limiter.tryAcquire());
    assert.deepEqual(slots.map((s) => s !== undefined), [true, true, true, true, false, false]);
    assert.deepEqual([limiter.running, limiter.queued, limiter.refused], [2, 2, 2]);
    const started: number[] = [];
    slots.forEach((s, i) => void s?.granted.then((g) => g && started.push(i)));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [0, 1]);
    slots[1]!.release();
    slots[1]!.release();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [0, 1, 2], 'a release starts the oldest waiter, once');
    assert.deepEqual([limiter.running, limiter.queued], [2, 1]);
  });

  it('given waiting work that gives up should leave the queue without taking a slot', async () => {
    const limiter = new WorkLimiter({ maxConcurrent: 1, maxQueued: 1 });
    const first = limiter.tryAcquire()!;
    const waiting = limiter.tryAcquire()!;
    waiting.release();
    assert.equal(await waiting.granted, false);
    assert.deepEqual([limiter.running, limiter.queued], [1, 0]);
    first.release();
    assert.equal(limiter.running, 0);
  });

  it('given work to yield to should start granted work only when it is idle, or after maxYieldMs', async () => {
    const limiter = new WorkLimiter({ maxConcurrent: 1, maxQueued: 0, maxYieldMs: 60_000 });
    let idle!: () => void;
    limiter.yieldTo(() => new Promise<void>((r) => (idle = r)));
    let started = false;
    const run = limiter.yielded().then(() => (started = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(started, false, 'waits while the other work is busy');
    idle();
    await run;
    assert.equal(started, true);
    const bounded = new WorkLimiter({ maxYieldMs: 10 });
    bounded.yieldTo(() => new Promise<void>(() => undefined));
    await bounded.yielded();
  });

  it('given a limit that is not a positive integer should throw RangeError naming it', () => {
    assert.throws(() => new WorkLimiter({ maxConcurrent: 0 }), /maxConcurrent must be a positive integer, got 0/);
  });
});

describe('limitHttpWork', () => {
  let listener: HttpListener;
  afterEach(() => listener.close());

  it('given 12 concurrent requests to a slow handler should run 2, queue 3, refuse 7 with 503 and Retry-After, then serve the queued', async () => {
    const limiter = new WorkLimiter({ maxConcurrent: 2, maxQueued: 3, retryAfterSeconds: 2 });
    let inside = 0;
    let maxInside = 0;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const handler = limitHttpWork(limiter, async (_req, res) => {
      maxInside = Math.max(maxInside, ++inside);
      await gate;
      inside--;
      res.end('dump');
    });
    listener = await listenHttp((req, res) => void handler(req, res), '127.0.0.1:0', 'httpAddr');
    const url = `http://127.0.0.1:${listener.address.port}/debug/config_dump`;
    const answers: { status: number; retryAfter: string | null; body: string }[] = [];
    const calls = Array.from({ length: 12 }, async () => {
      const res = await fetch(url);
      answers.push({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() });
    });
    await until(() => answers.length === 7, 'the refused requests answered');
    assert.ok(answers.every((a) => a.status === 503 && a.retryAfter === '2' && /busy: 2 debug requests running and 3 waiting/.test(a.body)));
    assert.deepEqual([limiter.running, limiter.queued, limiter.refused, inside], [2, 3, 7, 2]);
    open();
    await Promise.all(calls);
    assert.deepEqual(answers.slice(7).map((a) => [a.status, a.body]), Array.from({ length: 5 }, () => [200, 'dump']));
    assert.equal(maxInside, 2);
    await until(() => limiter.running === 0, 'every slot released');
  });
});
