import assert from 'node:assert/strict';
import { BehaviorSubject } from 'rxjs';
import { ManualClock, createMetrics } from '../../core/index.js';
import { settle } from '../testing/settle.js';
import { ReconcileRunner, TerminalError, type ReconcileFunction, type ReconcileResult } from './reconcile-runner.js';

/** A reconcile function whose calls the test completes by hand. */
class ScriptedReconcile {
  readonly calls: { key: string; at: number; signal: AbortSignal }[] = [];
  readonly #pending: { key: string; resolve: (r: ReconcileResult | void) => void; reject: (e: unknown) => void }[] = [];
  active = 0;
  maxActive = 0;
  readonly activeKeys = new Set<string>();
  overlapped = false;

  constructor(readonly clock: ManualClock) {}

  readonly fn: ReconcileFunction = (key, signal) => {
    this.calls.push({ key, at: this.clock.now(), signal });
    if (this.activeKeys.has(key)) this.overlapped = true;
    this.activeKeys.add(key);
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    return new Promise<ReconcileResult | void>((resolve, reject) => this.#pending.push({ key, resolve, reject })).finally(() => {
      this.active -= 1;
      this.activeKeys.delete(key);
    });
  };

  get pending(): number {
    return this.#pending.length;
  }

  async finish(result: ReconcileResult | void = undefined): Promise<void> {
    const call = this.#pending.shift();
    assert.ok(call, 'no reconcile is running');
    call.resolve(result);
    await settle();
  }

  async fail(err: unknown): Promise<void> {
    const call = this.#pending.shift();
    assert.ok(call, 'no reconcile is running');
    call.reject(err);
    await settle();
  }
}

describe('ReconcileRunner', () => {
  let clock: ManualClock;
  let script: ScriptedReconcile;
  let runner: ReconcileRunner;

  function newRunner(options: Partial<ConstructorParameters<typeof ReconcileRunner>[0]> = {}): ReconcileRunner {
    runner = new ReconcileRunner({ name: 'test', reconcile: script.fn, clock, backoffInitialMs: 5, backoffMaxMs: 40, ...options });
    return runner;
  }

  beforeEach(() => {
    clock = new ManualClock();
    script = new ScriptedReconcile(clock);
  });

  afterEach(async () => {
    await runner.stop();
  });

  it('given a key added three times before start, should reconcile it once', async () => {
    newRunner();
    runner.add('ns/a');
    runner.add('ns/a');
    runner.add('ns/a');
    runner.start();
    await settle();
    await script.finish();
    await runner.idle();
    assert.deepEqual(script.calls.map((c) => c.key), ['ns/a']);
  });

  it('given two caches, should start only once both have synced', async () => {
    newRunner();
    const a = new BehaviorSubject(false);
    const b = new BehaviorSubject(false);
    runner.add('ns/a');
    runner.startWhenSynced([a, b]);
    a.next(true);
    await settle();
    assert.equal(script.calls.length, 0, 'one cache still filling');
    b.next(true);
    await settle();
    assert.deepEqual(script.calls.map((c) => c.key), ['ns/a']);
    await script.finish();
  });

  it('given a key added while it is reconciled, should reconcile it again afterwards and never twice at once', async () => {
    newRunner({ maxConcurrent: 4 });
    runner.start();
    runner.add('ns/a');
    await settle();
    runner.add('ns/a');
    runner.add('ns/a');
    await settle();
    assert.equal(script.pending, 1, 'the second add must wait for the first reconcile');
    await script.finish();
    assert.equal(script.pending, 1);
    await script.finish();
    await runner.idle();
    assert.equal(script.calls.length, 2);
    assert.equal(script.overlapped, false);
  });

  it('given failures, should retry with capped exponential backoff and reset after a success', async () => {
    newRunner();
    runner.start();
    runner.add('ns/a');
    await settle();
    for (let i = 0; i < 5; i += 1) {
      await script.fail(new Error('boom'));
      await clock.advance(100);
    }
    const gaps = script.calls.slice(1).map((c, i) => c.at - (script.calls[i]!.at));
    // Each failure at time t retries at t + delay; advance(100) then moves on to the next 100 ms step.
    const delays = script.calls.slice(1).map((c, i) => c.at - 100 * i);
    assert.deepEqual(delays, [5, 10, 20, 40, 40], `retry delays (gaps ${gaps.join(',')})`);
    assert.equal(runner.failures('ns/a'), 5);
    await script.finish();
    assert.equal(runner.failures('ns/a'), 0);
    runner.add('ns/a');
    await settle();
    await script.fail(new Error('again'));
    const before = clock.now();
    await clock.advance(5);
    assert.equal(script.calls.at(-1)!.at, before + 5, 'after a success the backoff starts again at the initial delay');
    await script.finish();
  });

  it('given a terminal error, should not retry', async () => {
    newRunner();
    runner.start();
    runner.add('ns/a');
    await settle();
    await script.fail(new TerminalError('bad spec'));
    await clock.advance(10_000);
    assert.equal(script.calls.length, 1);
    assert.equal(clock.pendingTimers, 0);
  });

  it('given requeueAfterMs, should reconcile the key again after that delay', async () => {
    newRunner();
    runner.start();
    runner.add('ns/a');
    await settle();
    await script.finish({ requeueAfterMs: 1000 });
    await clock.advance(999);
    assert.equal(script.calls.length, 1);
    await clock.advance(1);
    assert.equal(script.calls.length, 2);
    assert.equal(script.calls[1]!.at, 1000);
    await script.finish();
  });

  const concurrencyCases = [
    { name: 'given maxConcurrent 1 and five keys, should reconcile one at a time', maxConcurrent: 1 },
    { name: 'given maxConcurrent 3 and five keys, should reconcile at most three at a time', maxConcurrent: 3 },
  ];
  for (const c of concurrencyCases) {
    it(c.name, async () => {
      newRunner({ maxConcurrent: c.maxConcurrent });
      for (const key of ['a', 'b', 'c', 'd', 'e']) runner.add(key);
      runner.start();
      await settle();
      assert.equal(script.pending, c.maxConcurrent);
      while (script.pending > 0) await script.finish();
      await runner.idle();
      assert.equal(script.calls.length, 5);
      assert.equal(script.maxActive, c.maxConcurrent);
    });
  }

  it('given queue metrics, should record depth, latency and duration under the reconciler name', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    newRunner({ name: 'root-cert', metrics });
    runner.add('a');
    runner.add('b');
    const depth = async (): Promise<number | undefined> =>
      (await metrics.registry.getSingleMetric('pilot_worker_queue_depth')!.get()).values.find((v) => v.labels['name'] === 'root-cert')?.value;
    assert.equal(await depth(), 2);
    await clock.advance(250);
    runner.start();
    await settle();
    assert.equal(await depth(), 1);
    await clock.advance(500);
    await script.finish();
    await script.finish();
    const text = await metrics.registry.metrics();
    assert.match(text, /pilot_worker_queue_latency_count\{name="root-cert"\} 2/);
    assert.match(text, /pilot_worker_queue_latency_sum\{name="root-cert"\} 1\n/, 'a waited 250 ms, b 750 ms');
    assert.match(text, /pilot_worker_queue_duration_sum\{name="root-cert"\} 0\.5/, 'a ran 500 ms, b 0 ms');
    assert.equal(await depth(), 0);
  });

  it('given stop, should abort running reconciles, drop queued keys and cancel retries', async () => {
    newRunner();
    runner.start();
    runner.add('a');
    runner.add('b');
    await settle();
    const stopped = runner.stop();
    assert.equal(script.calls[0]!.signal.aborted, true);
    await script.fail(new Error('aborted'));
    await stopped;
    await clock.advance(10_000);
    assert.deepEqual(script.calls.map((c) => c.key), ['a']);
    assert.equal(clock.pendingTimers, 0);
  });
});
