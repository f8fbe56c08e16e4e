import { strict as assert } from 'node:assert';
import { Lifecycle } from './lifecycle.js';

describe('Lifecycle', () => {
  it('given closers should run them in reverse order, once', async () => {
    const order: string[] = [];
    const life = new Lifecycle();
    life.add('first', () => void order.push('first'));
    life.add('second', async () => {
      await Promise.resolve();
      order.push('second');
    });
    const [a, b] = await Promise.all([life.close(), life.close()]);
    assert.deepEqual(order, ['second', 'first']);
    assert.equal(a, b);
    assert.deepEqual(a, { forced: false, errors: [] });
  });

  it('given a failing closer should still run the others and report it', async () => {
    const order: string[] = [];
    const life = new Lifecycle();
    life.add('a', () => void order.push('a'));
    life.add('bad', () => {
      throw new Error('boom');
    });
    const result = await life.close();
    assert.deepEqual(order, ['a']);
    assert.equal(result.errors[0]?.name, 'bad');
  });

  it('given a closer that hangs should resolve at the deadline as forced', async () => {
    const life = new Lifecycle();
    let release: () => void = () => undefined;
    life.add('hangs', () => new Promise<void>((resolve) => (release = resolve)));
    const result = await life.close(1);
    assert.equal(result.forced, true);
    release();
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`given ${signal} should close everything and remove its signal listeners`, async () => {
      const count = (): number => process.listenerCount('SIGTERM') + process.listenerCount('SIGINT');
      const before = count();
      const life = new Lifecycle();
      let closed = false;
      life.add('thing', () => void (closed = true));
      const running = life.runUntilSignal(10_000);
      assert.equal(count(), before + 2);
      process.emit(signal, signal);
      const result = await running;
      assert.equal(closed, true);
      assert.equal(result.signal, signal);
      assert.equal(count(), before);
    });
  }

  it('given a signal during start-up should close what is registered afterwards at once, and wait for it', async () => {
    const life = new Lifecycle();
    const order: string[] = [];
    life.add('early', () => void order.push('early'));
    const running = life.runUntilSignal(10_000);
    process.emit('SIGTERM', 'SIGTERM');
    assert.equal(life.closing, true);
    let releaseLate!: () => void;
    life.add('late', () => new Promise<void>((r) => (releaseLate = () => {
      order.push('late');
      r();
    })));
    let settled = false;
    void running.then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false, 'shutdown must wait for the late closer');
    releaseLate();
    const result = await running;
    assert.deepEqual(order, ['early', 'late']);
    assert.equal(result.signal, 'SIGTERM');
  });

  it('given close() before any signal should resolve runUntilSignal with that shutdown and stop listening', async () => {
    const count = (): number => process.listenerCount('SIGTERM') + process.listenerCount('SIGINT');
    const before = count();
    const life = new Lifecycle();
    const running = life.runUntilSignal(10_000);
    const closed = await life.close();
    assert.equal(await running, closed);
    assert.equal(closed.signal, undefined);
    assert.equal(count(), before);
  });
});
