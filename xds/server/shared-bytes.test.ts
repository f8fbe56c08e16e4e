import assert from 'node:assert/strict';
import { beginWrite, claim, endWrite, isShared, retire, share } from './shared-bytes.js';

/** Shared bytes of their own, registered. */
const shared = (): Buffer => {
  const b = Buffer.allocUnsafeSlow(1000).fill(7);
  share(b);
  return b;
};
const freed = (b: Buffer): boolean => b.length === 0 && !isShared(b);

describe('shared bytes freed once nothing can send them (shared-bytes.ts)', () => {
  it('given a response written once and the bytes retired should free them after the write, not before', () => {
    const b = shared();
    const response = {};
    claim(b);
    beginWrite(response, [b]);
    retire(b);
    assert.equal(b.length, 1000, 'still being written');
    endWrite([b]);
    assert.ok(freed(b));
  });

  it('given the bytes retired after the last write should free them at once', () => {
    const b = shared();
    const response = {};
    claim(b);
    beginWrite(response, [b]);
    endWrite([b]);
    assert.equal(b.length, 1000, 'not retired: the owner may hand them out again');
    retire(b);
    assert.ok(freed(b));
  });

  it('given another response made with the bytes and not written yet should keep them', () => {
    const b = shared();
    const [written, waiting] = [{}, {}];
    claim(b);
    claim(b);
    beginWrite(written, [b]);
    endWrite([b]);
    retire(b);
    assert.equal(b.length, 1000, 'the waiting response still holds its claim');
    beginWrite(waiting, [b]);
    endWrite([b]);
    assert.ok(freed(b));
  });

  it('given one response written twice at once should keep the bytes until both writes are done', () => {
    const b = shared();
    const response = {};
    claim(b);
    beginWrite(response, [b]);
    beginWrite(response, [b]);
    retire(b);
    endWrite([b]);
    assert.equal(b.length, 1000, 'the second write still reads them');
    endWrite([b]);
    assert.ok(freed(b));
  });

  it('given bytes that share memory with others should refuse them (freeing would free the rest)', () => {
    const pool = Buffer.allocUnsafeSlow(2000);
    assert.throws(() => share(pool.subarray(0, 1000)), /whole ArrayBuffer/);
  });
});
