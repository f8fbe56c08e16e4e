import assert from 'node:assert/strict';
import { configKeysOf, mergePushRequests, proxyRequestPush, pushRequest } from './push-request.js';

describe('PushRequest', () => {
  it('given requests naming the same config twice and in two requests should keep one ConfigKey per config, by value', () => {
    const vs = { kind: 'VirtualService', namespace: 'qs', name: 'echo' };
    const se = { kind: 'ServiceEntry', namespace: 'qs', name: 'echo.qs.svc.cluster.local' };
    const a = pushRequest('config', { full: true, configs: [vs, { ...vs }] });
    const b = pushRequest('service', { full: true, configs: [se, { ...vs }] });
    const merged = mergePushRequests(a, b);
    assert.deepEqual(configKeysOf(merged), [vs, se]);
    assert.ok(merged.configsUpdated.has({ kind: 'ServiceEntry', namespace: 'qs', name: 'echo.qs.svc.cluster.local' }));
    assert.ok(!merged.configsUpdated.has({ kind: 'ServiceEntry', namespace: 'other', name: 'echo.qs.svc.cluster.local' }));
    assert.deepEqual(merged.configsUpdated.strings(), ['VirtualService/qs/echo', 'ServiceEntry/qs/echo.qs.svc.cluster.local']);
  });

  it('given a proxy request and a config push without snapshots should merge into a forced full push without one', () => {
    const merged = mergePushRequests(proxyRequestPush(undefined), pushRequest('config', { full: true, configs: [{ kind: 'VirtualService', namespace: 'qs', name: 'echo' }] }));
    assert.equal(merged.forced, true);
    assert.equal(merged.snapshot, undefined);
    assert.equal(merged.configsUpdated.size, 0, 'a proxy request means everything');
  });
});
