import assert from 'node:assert/strict';
import { NamePool } from './name-pool.js';

describe('NamePool', () => {
  it('given names past its bound should keep pooling the names it has and stop growing', () => {
    const pool = new NamePool(2);
    const name = (s: string): string => [...s].join(''); // a fresh string each call
    assert.equal(pool.intern(name('outbound|80||a')), 'outbound|80||a');
    assert.equal(pool.intern(name('outbound|80||b')), 'outbound|80||b');
    assert.equal(pool.intern(name('outbound|80||c')), 'outbound|80||c');
    assert.equal(pool.size, 2);
    assert.equal(pool.intern(name('outbound|80||a')), 'outbound|80||a');
    assert.equal(pool.size, 2);
  });
});
