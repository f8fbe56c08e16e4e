import assert from 'node:assert/strict';
import { pushRequest, type PushRequest } from '../../core/index.js';
import { PushQueue } from './push-queue.js';

/** A push whose completion the test controls. */
interface Held {
  readonly key: string;
  readonly request: PushRequest;
  finish(): void;
  fail(e: Error): void;
}

function harness(concurrency: number): { queue: PushQueue<string>; started: Held[]; waits: number[]; errors: unknown[]; clock: { t: number } } {
  const started: Held[] = [];
  const waits: number[] = [];
  const errors: unknown[] = [];
  const clock = { t: 0 };
  const queue = new PushQueue<string>({
    concurrency,
    now: () => clock.t,
    onDequeue: (_k, w) => waits.push(w),
    onError: (_k, e) => errors.push(e),
    push: (key, request) =>
      new Promise<void>((resolve, reject) => {
        started.push({ key, request, finish: resolve, fail: reject });
      }),
  });
  return { queue, started, waits, errors, clock };
}

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('PushQueue', () => {
  it('given more connections than the throttle, should run at most `concurrency` pushes at once, in FIFO order', async () => {
    const { queue, started } = harness(2);
    for (const k of ['a', 'b', 'c', 'd']) queue.enqueue(k, pushRequest('config', { full: true }));
    assert.deepEqual(started.map((s) => s.key), ['a', 'b']);
    assert.equal(queue.running, 2);
    assert.equal(queue.queued, 2);
    started[0]!.finish();
    await flush();
    assert.deepEqual(started.map((s) => s.key), ['a', 'b', 'c']);
    started[1]!.finish();
    started[2]!.finish();
    await flush();
    assert.deepEqual(started.map((s) => s.key), ['a', 'b', 'c', 'd']);
    started[3]!.finish();
    await queue.idle();
  });

  it('given requests while a connection is being pushed, should merge them into one next push for it', async () => {
    const { queue, started } = harness(5);
    queue.enqueue('a', pushRequest('endpoint', { full: false, configs: ['ServiceEntry/ns/x'], start: 10 }));
    queue.enqueue('a', pushRequest('endpoint', { full: false, configs: ['ServiceEntry/ns/y'], start: 20 }));
    queue.enqueue('a', pushRequest('config', { full: true, configs: ['VirtualService/ns/v'], start: 30 }));
    assert.equal(started.length, 1, 'one push in flight per connection');
    started[0]!.finish();
    await flush();
    assert.equal(started.length, 2);
    const merged = started[1]!.request;
    assert.equal(merged.full, true);
    assert.deepEqual([...merged.configsUpdated].sort(), ['ServiceEntry/ns/y', 'VirtualService/ns/v']);
    assert.equal(merged.start, 20);
    assert.equal(merged.reasons.get('endpoint'), 1);
    assert.equal(merged.reasons.get('config'), 1);
    started[1]!.finish();
    await queue.idle();
    assert.equal(started.length, 2);
  });

  it('given a request for a connection already queued, should merge into it and keep its place', async () => {
    const { queue, started } = harness(1);
    queue.enqueue('a', pushRequest('config', { full: true }));
    queue.enqueue('b', pushRequest('endpoint', { full: false, configs: ['x'] }));
    queue.enqueue('c', pushRequest('endpoint', { full: false, configs: ['y'] }));
    queue.enqueue('b', pushRequest('endpoint', { full: false, configs: ['z'] }));
    assert.equal(queue.queued, 2);
    assert.deepEqual([...queue.queuedRequest('b')!.configsUpdated].sort(), ['x', 'z']);
    started[0]!.finish();
    await flush();
    assert.equal(started[1]!.key, 'b');
    started[1]!.finish();
    await flush();
    started[2]!.finish();
    await queue.idle();
    assert.deepEqual(started.map((s) => s.key), ['a', 'b', 'c']);
  });

  it('given a queued connection that closes, should drop its requests', async () => {
    const { queue, started } = harness(1);
    queue.enqueue('a', pushRequest('config', { full: true }));
    queue.enqueue('b', pushRequest('config', { full: true }));
    queue.enqueue('a', pushRequest('config', { full: true }));
    queue.remove('b');
    queue.remove('a');
    started[0]!.finish();
    await queue.idle();
    assert.deepEqual(started.map((s) => s.key), ['a']);
  });

  it('given a failing push, should report it and go on with the next', async () => {
    const { queue, started, errors } = harness(1);
    queue.enqueue('a', pushRequest('config', { full: true }));
    queue.enqueue('b', pushRequest('config', { full: true }));
    started[0]!.fail(new Error('boom'));
    await flush();
    assert.equal((errors[0] as Error).message, 'boom');
    started[1]!.finish();
    await queue.idle();
    assert.deepEqual(started.map((s) => s.key), ['a', 'b']);
  });

  it('given time spent waiting, should report the queue time of each push', async () => {
    const { queue, started, waits, clock } = harness(1);
    queue.enqueue('a', pushRequest('config', { full: true }));
    clock.t = 5;
    queue.enqueue('b', pushRequest('config', { full: true }));
    clock.t = 25;
    started[0]!.finish();
    await flush();
    started[1]!.finish();
    await queue.idle();
    assert.deepEqual(waits, [0, 20]);
  });

  it('given a concurrency below 1, should refuse to start', () => {
    assert.throws(() => new PushQueue<string>({ concurrency: 0, push: () => Promise.resolve() }), /concurrency must be a whole number >= 1 \(got 0\)/);
  });
});
