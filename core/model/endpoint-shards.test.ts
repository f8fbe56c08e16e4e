import assert from 'node:assert/strict';
import { EndpointShards } from './endpoint-shards.js';
import type { ServiceInstance } from './service.js';

function inst(hostname: string, address: string, extra: Partial<ServiceInstance> = {}): ServiceInstance {
  return {
    hostname, servicePort: 80, servicePortName: 'http', address, port: 8080, labels: { app: 'a' },
    locality: { region: '', zone: '', subZone: '' }, weight: 1, serviceAccount: '', network: '', health: 'HEALTHY', source: 'x', ...extra,
  };
}

describe('EndpointShards', () => {
  it('given a change to one shard should rebuild only that shard and keep every other shard and host object', () => {
    const w = new EndpointShards();
    w.update([
      { hostname: 'a', shard: 'c1', instances: [inst('a', '10.0.0.1')] },
      { hostname: 'a', shard: 'c2', instances: [inst('a', '10.0.1.1')] },
      { hostname: 'b', shard: 'c1', instances: [inst('b', '10.0.2.1')] },
    ]);
    const before = w.snapshot;
    const ch = w.update([{ hostname: 'a', shard: 'c1', instances: [inst('a', '10.0.0.9')] }]);
    const after = w.snapshot;
    assert.deepEqual([...ch.hosts], ['a']);
    assert.deepEqual([...ch.shards], ['a|c1']);
    assert.equal(after.shards('a')!.shards.get('c2'), before.shards('a')!.shards.get('c2'), 'the untouched shard is the same object');
    assert.equal(after.shards('b'), before.shards('b'), 'the untouched host is the same object');
    assert.equal(after.shards('a')!.shards.get('c1')!.version, after.version);
    assert.equal(after.shards('a')!.shards.get('c2')!.version, 1, 'the untouched shard keeps the version it was built at');
    assert.equal(after.version, 2);
    assert.deepEqual(after.instances('a').map((i) => i.address), ['10.0.0.9', '10.0.1.1']);
  });

  it('given a snapshot taken before later updates should keep answering as it did', () => {
    const w = new EndpointShards();
    w.update([{ hostname: 'a', shard: 'c1', instances: [inst('a', '10.0.0.1')] }]);
    const taken = w.snapshot;
    w.update([{ hostname: 'a', shard: 'c1', instances: [inst('a', '10.0.0.2')] }, { hostname: 'b', shard: 'c1', instances: [inst('b', '10.0.0.3')] }]);
    w.update([{ hostname: 'a', shard: 'c1', instances: undefined }]);
    assert.deepEqual(taken.instances('a').map((i) => i.address), ['10.0.0.1']);
    assert.deepEqual(taken.instances('b'), []);
    assert.equal(taken.version, 1);
    assert.deepEqual(w.snapshot.instances('a'), []);
    assert.equal(w.snapshot.shards('a'), undefined, 'a host with no shard left is gone');
    assert.ok(Object.isFrozen(taken) && Object.isFrozen(taken.instances('a')));
  });

  const noChange = [
    { name: 'given equal instances in new objects', instances: [inst('a', '10.0.0.1', { labels: { app: 'a' } })] },
    { name: 'given an empty list for a shard that does not exist', shard: 'c9', instances: [] },
  ];
  for (const c of noChange) {
    it(`${c.name} should report no change and keep the snapshot`, () => {
      const w = new EndpointShards();
      w.update([{ hostname: 'a', shard: 'c1', instances: [inst('a', '10.0.0.1')] }]);
      const before = w.snapshot;
      const ch = w.update([{ hostname: 'a', shard: c.shard ?? 'c1', instances: c.instances }]);
      assert.equal(ch.hosts.size, 0);
      assert.equal(w.snapshot, before);
    });
  }

  const changes: { name: string; change: Partial<ServiceInstance> }[] = [
    { name: 'health', change: { health: 'UNHEALTHY' } },
    { name: 'a label', change: { labels: { app: 'b' } } },
    { name: 'the locality', change: { locality: { region: 'r', zone: '', subZone: '' } } },
    { name: 'the weight', change: { weight: 3 } },
  ];
  for (const c of changes) {
    it(`given a change of ${c.name} only should report exactly that host`, () => {
      const w = new EndpointShards();
      w.update([{ hostname: 'a', shard: 'c1', instances: [inst('a', '10.0.0.1')] }, { hostname: 'b', shard: 'c1', instances: [inst('b', '10.0.0.2')] }]);
      const ch = w.update([{ hostname: 'a', shard: 'c1', instances: [inst('a', '10.0.0.1', c.change)] }, { hostname: 'b', shard: 'c1', instances: [inst('b', '10.0.0.2')] }]);
      assert.deepEqual([...ch.hosts], ['a']);
      assert.deepEqual([...ch.shards], ['a|c1']);
    });
  }
});
