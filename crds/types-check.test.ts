import assert from 'node:assert/strict';
import type { HTTPRoute, VirtualService, DestinationRuleSpec, ServiceEntrySpec } from './types.js';

describe('crds/types', () => {
  it('given a typed VirtualService literal should compile and keep its values', () => {
    const route: HTTPRoute = {
      match: [{ uri: { prefix: '/api' }, headers: { 'x-user': { exact: 'a' } } }],
      route: [{ destination: { host: 'reviews', subset: 'v1', port: { number: 9080 } }, weight: 100 }],
      timeout: '1s',
    };
    const vs: VirtualService = {
      apiVersion: 'networking.mesh.io/v1',
      kind: 'VirtualService',
      metadata: { name: 'reviews', namespace: 'default' },
      spec: { hosts: ['reviews'], http: [route] },
    };
    const dr: DestinationRuleSpec = { host: 'reviews', subsets: [{ name: 'v1', labels: { version: 'v1' } }] };
    const se: ServiceEntrySpec = { hosts: ['a.example.com'], resolution: 'DNS', ports: [{ number: 443, name: 'https' }] };
    // @ts-expect-error: 'BOGUS' is not a resolution
    const bad: ServiceEntrySpec = { hosts: ['x'], resolution: 'BOGUS' };
    assert.equal(vs.spec.http?.[0]?.route?.[0]?.destination.host, 'reviews');
    assert.equal(dr.subsets?.[0]?.name, 'v1');
    assert.equal(se.ports?.[0]?.number, 443);
    assert.equal(bad.hosts[0], 'x');
  });
});
