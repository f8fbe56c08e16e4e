import assert from 'node:assert/strict';
import { FLAT_MAX, PersistentMap } from './persistent-map.js';

/** A deterministic pseudo-random sequence (no Math.random in tests). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

function contents<V>(m: PersistentMap<V>): [string, V][] {
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

describe('PersistentMap', () => {
  const sizes = [
    { name: 'given a small map (flat)', n: 10 },
    { name: 'given a map that grows past the flat limit (trie)', n: FLAT_MAX * 4 },
  ];
  for (const c of sizes) {
    it(`${c.name} and random upserts and deletes should hold what a Map holds and leave every earlier version unchanged`, () => {
      const rnd = lcg(c.n);
      let m = PersistentMap.empty<number>();
      const ref = new Map<string, number>();
      const versions: { map: PersistentMap<number>; want: [string, number][] }[] = [];
      for (let step = 0; step < c.n * 3; step++) {
        const batch: [string, number | undefined][] = [];
        for (let j = 0; j < 1 + Math.floor(rnd() * 4); j++) {
          const key = `k${Math.floor(rnd() * c.n * 1.5)}`;
          const value = rnd() < 0.25 ? undefined : step;
          batch.push([key, value]);
          if (value === undefined) ref.delete(key);
          else ref.set(key, value);
        }
        m = m.withUpdates(batch);
        if (step % 7 === 0) versions.push({ map: m, want: [...ref.entries()].sort(([a], [b]) => (a < b ? -1 : 1)) });
        assert.equal(m.size, ref.size, `size at step ${step}`);
      }
      assert.deepEqual(contents(m), [...ref.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
      for (const [k, v] of ref) assert.equal(m.get(k), v);
      assert.equal(m.get('missing'), undefined);
      for (const v of versions) assert.deepEqual(contents(v.map), v.want, 'an earlier version changed');
    });
  }

  it('given changes that alter nothing should return the same map', () => {
    const m = PersistentMap.of([['a', 1], ['b', 2]]);
    assert.equal(m.withUpdates([['a', 1], ['zz', undefined]]), m);
    const big = PersistentMap.of(Array.from({ length: FLAT_MAX * 2 }, (_, i) => [`k${i}`, i] as const));
    assert.equal(big.withUpdates([['k3', 3], ['nope', undefined]]), big);
  });

  it('given a map that shrinks below half the flat limit should keep every entry', () => {
    let m = PersistentMap.of(Array.from({ length: FLAT_MAX + 10 }, (_, i) => [`k${i}`, i] as const));
    m = m.withUpdates(Array.from({ length: FLAT_MAX }, (_, i) => [`k${i}`, undefined] as const));
    assert.deepEqual(contents(m), Array.from({ length: 10 }, (_, i) => [`k${FLAT_MAX + i}`, FLAT_MAX + i]).sort(([a], [b]) => (a! < b! ? -1 : 1)));
  });
});
