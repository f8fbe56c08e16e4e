import assert from 'node:assert/strict';
import { Subject } from 'rxjs';
import type { ModelInput } from '../core/index.js';
import { mergeSources } from './source-set.js';

describe('mergeSources', () => {
  it('given sources that sync one after another should list the waiting ones and resolve after the last first batch was delivered', async () => {
    const a = new Subject<readonly ModelInput[]>();
    const b = new Subject<readonly ModelInput[]>();
    const set = mergeSources({ files: a, registry: b });
    const delivered: number[] = [];
    let syncedAfter = -1;
    const sub = set.inputs$.subscribe((batch) => delivered.push(batch.length));
    void set.synced.then(() => {
      syncedAfter = delivered.length;
    });
    assert.deepEqual(set.unsynced(), ['files', 'registry']);
    a.next([]);
    assert.deepEqual(set.unsynced(), ['registry']);
    b.next([{ kind: 'networks', networks: { networks: {} } } as unknown as ModelInput]);
    assert.deepEqual(set.unsynced(), []);
    await set.synced;
    assert.equal(syncedAfter, 2, 'resolved only after the consumer received the last first batch');
    a.next([]);
    assert.deepEqual(delivered, [0, 1, 0]);
    sub.unsubscribe();
  });

  it('given no sources should be synced at once', async () => {
    const set = mergeSources({});
    assert.deepEqual(set.unsynced(), []);
    await set.synced;
  });
});
