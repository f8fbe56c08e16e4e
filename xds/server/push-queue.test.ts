import assert from 'node:assert/strict';
import { ManualClock, pushRequest, TurnSlicer, type ConfigKey, type PushRequest } from '../../core/index.js';
import { PushQueue, type PushQueueOptions } from './push-queue.js';
import { eventually } from '../testing/index.js';

/** A push whose completion the test controls. */
interface Held {
  readonly key: string;
  readonly request: PushRequest;
  finish(): void;
  fail(e: Error): void;
}

function harness(concurrency: number, extra: Partial<PushQueueOptions<string>> = {}): { queue: PushQueue<string>; started: Held[]; waits: number[]; errors: unknown[]; clock: ManualClock } {
  const started: Held[] = [];
  const waits: number[] = [];
  const errors: unknown[] = [];
  const clock = new ManualClock();
  const queue = new PushQueue<string>({
    concurrency,
    clock,
    // NOTE: its own slicer: the process-wide one may be over budget in a busy test run (a real-time bound).
    slicer: new TurnSlicer(1e9),
    onDequeue: (_k, w) => waits.push(w),
    onError: (_k, e) => errors.push(e),
    push: (key, request) =>
      new Promise<void>((resolve, reject) => {
        started.push({ key, request, finish: resolve, fail: reject });
      }),
    ...extra,
  });
  return { queue, started, waits, errors, clock };
}

/** The key of ServiceEntry `name` in namespace ns. */
const se = (name: string): ConfigKey => ({ kind: 'ServiceEntry', namespace: 'ns', name });

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
    queue.enqueue('a', pushRequest('endpoint', { full: false, configs: [{ kind: 'ServiceEntry', namespace: 'ns', name: 'x' }], start: 10 }));
    queue.enqueue('a', pushRequest('endpoint', { full: false, configs: [{ kind: 'ServiceEntry', namespace: 'ns', name: 'y' }], start: 20 }));
    queue.enqueue('a', pushRequest('config', { full: true, configs: [{ kind: 'VirtualService', namespace: 'ns', name: 'v' }], start: 30 }));
    assert.equal(started.length, 1, 'one push in flight per connection');
    started[0]!.finish();
    await flush();
    assert.equal(started.length, 2);
    const merged = started[1]!.request;
    assert.equal(merged.full, true);
    assert.deepEqual(merged.configsUpdated.strings().sort(), ['ServiceEntry/ns/y', 'VirtualService/ns/v']);
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
    queue.enqueue('b', pushRequest('endpoint', { full: false, configs: [se('x')] }));
    queue.enqueue('c', pushRequest('endpoint', { full: false, configs: [se('y')] }));
    queue.enqueue('b', pushRequest('endpoint', { full: false, configs: [se('z')] }));
    assert.equal(queue.queued, 2);
    assert.deepEqual(queue.queuedRequest('b')!.configsUpdated.strings().sort(), ['ServiceEntry/ns/x', 'ServiceEntry/ns/z']);
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
    clock.advanceSync(5);
    queue.enqueue('b', pushRequest('config', { full: true }));
    clock.advanceSync(20);
    started[0]!.finish();
    await flush();
    started[1]!.finish();
    await queue.idle();
    assert.deepEqual(waits, [0, 20]);
  });

  it('given a push that never settles and its connection closes, should free its slot for the next connection', async () => {
    const { queue, started } = harness(1);
    queue.enqueue('stuck', pushRequest('config', { full: true }));
    queue.enqueue('b', pushRequest('config', { full: true }));
    assert.deepEqual(started.map((s) => s.key), ['stuck']);
    queue.remove('stuck');
    await flush();
    assert.deepEqual(started.map((s) => s.key), ['stuck', 'b']);
    started[1]!.finish();
    await queue.idle();
    // A late settle of the removed push changes nothing.
    started[0]!.finish();
    await flush();
    assert.equal(queue.running, 0);
  });

  it('given a push that outlives slotHoldMs, should push the others without it and merge its next requests until it ends', async () => {
    const { queue, started, clock } = harness(1, { slotHoldMs: 5 });
    queue.enqueue('stuck', pushRequest('config', { full: true }));
    queue.enqueue('b', pushRequest('config', { full: true }));
    assert.equal(clock.advanceSync(5), 1, 'the slot-hold bound runs on the queue clock');
    await eventually('b to start once the stuck push gave its slot back', () => started.some((s) => s.key === 'b'));
    assert.equal(queue.running, 1);
    assert.equal(queue.stalled, 1);
    started[1]!.finish();
    queue.enqueue('stuck', pushRequest('endpoint', { full: false, configs: [se('x')] }));
    queue.enqueue('stuck', pushRequest('endpoint', { full: false, configs: [se('y')] }));
    queue.enqueue('c', pushRequest('config', { full: true }));
    await eventually('c to start', () => started.some((s) => s.key === 'c'));
    clock.advanceSync(5); // c holds the only slot; past the bound the stuck connection's next push may start
    assert.equal(started.filter((s) => s.key === 'stuck').length, 1, 'no second push to the stuck connection while its first runs');
    started[0]!.finish();
    await eventually('the merged push to the stuck connection', () => started.filter((s) => s.key === 'stuck')[1]);
    assert.deepEqual(started.filter((s) => s.key === 'stuck')[1]!.request.configsUpdated.strings().sort(), ['ServiceEntry/ns/x', 'ServiceEntry/ns/y']);
    for (const s of started) s.finish();
    await queue.idle();
  });

  it('given a connection whose earlier responses have not drained, should let it wait without a slot and push it once drained', async () => {
    const drains = new Map<string, () => void>();
    const pendingDrain = new Map<string, Promise<void>>();
    const { queue, started } = harness(1, { drained: (k) => pendingDrain.get(k) });
    pendingDrain.set('slow', new Promise<void>((r) => drains.set('slow', r)));
    queue.enqueue('slow', pushRequest('config', { full: true }));
    queue.enqueue('b', pushRequest('config', { full: true }));
    assert.deepEqual(started.map((s) => s.key), ['b']);
    assert.equal(queue.stalled, 1);
    queue.enqueue('slow', pushRequest('endpoint', { full: false, configs: [se('x')] }));
    assert.equal(queue.queuedRequest('slow')?.full, true, 'merged while it waits');
    started[0]!.finish();
    pendingDrain.delete('slow');
    drains.get('slow')!();
    await eventually('the push to the drained connection', () => started.find((s) => s.key === 'slow'));
    started[1]!.finish();
    await queue.idle();
  });

  it('given a concurrency below 1, should refuse to start', () => {
    assert.throws(() => new PushQueue<string>({ concurrency: 0, push: () => Promise.resolve() }), /concurrency must be a whole number >= 1 \(got 0\)/);
  });
});
