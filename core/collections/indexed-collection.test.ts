import assert from 'node:assert/strict';
import { IndexedCollection } from './indexed-collection.js';

interface Item {
  host: string;
  v: number;
}

describe('IndexedCollection', () => {
  it('given upserts and deletes should give a new snapshot and leave the old one unchanged', () => {
    const c = new IndexedCollection<Item>({ host: (i) => [i.host] });
    const first = c.apply([{ key: 'a', value: { host: 'h1', v: 1 } }, { key: 'b', value: { host: 'h1', v: 2 } }]);
    const second = c.apply([{ key: 'a' }, { key: 'c', value: { host: 'h2', v: 3 } }]);
    assert.deepEqual([...first.snapshot.keys()], ['a', 'b']);
    assert.deepEqual(first.snapshot.byIndex('host', 'h1').map((i) => i.v), [1, 2]);
    assert.deepEqual([...second.snapshot.keys()].sort(), ['b', 'c']);
    assert.deepEqual(second.snapshot.byIndex('host', 'h1').map((i) => i.v), [2]);
    assert.deepEqual(second.snapshot.byIndex('host', 'h2').map((i) => i.v), [3]);
    assert.deepEqual([...second.touched].sort(), ['a', 'c']);
    assert.equal(second.snapshot.version, first.snapshot.version + 1);
  });

  it('given an update that moves an item between index values should refile it', () => {
    const c = new IndexedCollection<Item>({ host: (i) => [i.host] });
    c.apply([{ key: 'a', value: { host: 'h1', v: 1 } }]);
    const ch = c.apply([{ key: 'a', value: { host: 'h2', v: 1 } }]);
    assert.deepEqual(ch.snapshot.byIndex('host', 'h1'), []);
    assert.deepEqual([...ch.snapshot.indexValues('host')], ['h2']);
  });

  const noops = [
    { name: 'given an identical upsert should touch nothing and keep the snapshot', updates: [{ key: 'a', value: { host: 'h1', v: 1 } }] },
    { name: 'given a delete of a missing key should touch nothing', updates: [{ key: 'zz' }] },
    { name: 'given an add then a delete in one batch of a new key should touch nothing', updates: [{ key: 'n', value: { host: 'h', v: 0 } }, { key: 'n' }] },
  ];
  for (const c of noops) {
    it(c.name, () => {
      const col = new IndexedCollection<Item>({ host: (i) => [i.host] });
      const before = col.apply([{ key: 'a', value: { host: 'h1', v: 1 } }]).snapshot;
      const ch = col.apply(c.updates);
      assert.equal(ch.touched.size, 0);
      assert.equal(ch.snapshot, before);
    });
  }

  it('given an unknown index name should throw naming it', () => {
    assert.throws(() => new IndexedCollection<Item>().snapshot.byIndex('nope', 'x'), /no index "nope"/);
  });
});
