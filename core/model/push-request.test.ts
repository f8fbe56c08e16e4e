import assert from 'node:assert/strict';
import { configKeysOf, mergePushRequests, proxyRequestPush, pushRequest } from './push-request.js';

describe('PushRequest', () => {
  it('given a request naming configs should parse them once into ConfigKeys', () => {
    const req = pushRequest('config', { full: true, configs: ['VirtualService/qs/echo', 'ServiceEntry/qs/echo.qs.svc.cluster.local'] });
    const keys = configKeysOf(req);
    assert.deepEqual(keys, [
      { kind: 'VirtualService', namespace: 'qs', name: 'echo' },
      { kind: 'ServiceEntry', namespace: 'qs', name: 'echo.qs.svc.cluster.local' },
    ]);
    assert.equal(configKeysOf(req), keys, 'the same parsed list for every caller');
  });

  it('given a proxy request and a config push without snapshots should merge into a forced full push without one', () => {
    const merged = mergePushRequests(proxyRequestPush(undefined), pushRequest('config', { full: true, configs: ['VirtualService/qs/echo'] }));
    assert.equal(merged.forced, true);
    assert.equal(merged.snapshot, undefined);
    assert.equal(merged.configsUpdated.size, 0, 'a proxy request means everything');
  });
});
