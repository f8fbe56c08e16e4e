import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { decode, FramePool, POOLED_MIN_BYTES } from './pooled-decoder.js';

interface GrpcDecoder {
  write(data: Buffer): Buffer[];
}
const { StreamDecoder } = createRequire(import.meta.url)('@grpc/grpc-js/build/src/stream-decoder.js') as {
  StreamDecoder: new (max: number) => GrpcDecoder;
};

/** The gRPC frames of `messages`, one after another. */
function framed(messages: readonly Buffer[]): Buffer {
  return Buffer.concat(
    messages.map((m) => {
      const h = Buffer.alloc(5);
      h.writeUInt32BE(m.length, 1);
      return Buffer.concat([h, m]);
    }),
  );
}

/** `wire` cut at the given offsets (sorted, deduplicated, inside the buffer). */
function chunks(wire: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (wire.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...at, wire.length]) {
    out.push(wire.subarray(from, c));
    from = c;
  }
  return out;
}

describe('bench clients: pooled gRPC message reassembly', () => {
  it('given messages of any size cut into chunks anywhere should give the same frames as grpc-js\'s decoder', () => {
    const sizes = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: POOLED_MIN_BYTES - 8, max: 3 * POOLED_MIN_BYTES }));
    fc.assert(
      fc.property(fc.array(sizes, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 40 }), fc.nat(255), (lengths, cuts, seed) => {
        const messages = lengths.map((n, i) => Buffer.alloc(n, (seed + i) & 0xff));
        const wire = framed(messages);
        const theirs = new StreamDecoder(-1);
        const pool = new FramePool();
        const ours = { maxReadMessageLength: -1 };
        const want: Buffer[] = [];
        const got: Buffer[] = [];
        for (const c of chunks(wire, cuts)) {
          want.push(...theirs.write(c));
          got.push(...decode(ours, c, pool));
        }
        assert.equal(got.length, messages.length);
        assert.deepEqual(got.map((b) => b.toString('hex')), want.map((b) => b.toString('hex')));
      }),
      { numRuns: 200, seed: 20261207 },
    );
  });

  it('given a message over the limit should refuse it naming both sizes, as grpc-js does', () => {
    const wire = framed([Buffer.alloc(100)]);
    assert.throws(() => decode({ maxReadMessageLength: 99 }, wire, new FramePool()), /Received message larger than max \(100 vs 99\)/);
  });

  it('given a released large message should reuse its memory for the next one and leave a held one untouched', () => {
    const pool = new FramePool();
    const state = { maxReadMessageLength: -1 };
    const size = POOLED_MIN_BYTES + 10;
    const [first] = decode(state, framed([Buffer.alloc(size, 1)]), pool);
    const [held] = decode(state, framed([Buffer.alloc(size, 2)]), pool);
    pool.release(first!);
    const [third] = decode(state, framed([Buffer.alloc(size, 3)]), pool);
    assert.equal(third!.buffer, first!.buffer, 'the released memory was not reused');
    assert.equal(pool.reused, 1);
    assert.ok(held!.subarray(5).every((b) => b === 2), 'a message still held was overwritten');
    assert.ok(third!.subarray(5).every((b) => b === 3));
    assert.throws(() => {
      pool.release(third!);
      pool.release(third!.subarray(5));
    }, /released twice/);
  });

  it('given small messages should give them memory of their own, which release leaves alone', () => {
    const pool = new FramePool();
    const [m] = decode({ maxReadMessageLength: -1 }, framed([Buffer.alloc(10, 7)]), pool);
    pool.release(m!);
    const [n] = decode({ maxReadMessageLength: -1 }, framed([Buffer.alloc(10, 8)]), pool);
    assert.equal(pool.reused, 0);
    assert.ok(m!.subarray(5).every((b) => b === 7));
    assert.ok(n!.subarray(5).every((b) => b === 8));
  });

  it('given a worker thread should install itself on grpc-js\'s decoder there (the bench clients\' threads)', async () => {
    const url = new URL('./pooled-decoder.js', import.meta.url).href;
    const w = new Worker(
      `import(${JSON.stringify(url)}).then((m) => require('node:worker_threads').parentPort.postMessage([m.installPooledDecoder(), m.installedPool() !== undefined]))`,
      { eval: true },
    );
    const got = await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await w.terminate();
    assert.deepEqual(got, [true, true]);
  });
});
