import assert from 'node:assert/strict';
import { configRef } from './config-dump.js';

describe('configRef (the object proxy-config shows for a route or cluster)', () => {
  it('given meshd metadata should name the first source as name.namespace', () => {
    const meta = { filter_metadata: { mesh: { sources: ['VirtualService/default/reviews-api@3', 'VirtualService/default/reviews@1'] } } };
    assert.equal(configRef(meta), 'reviews-api.default');
  });

  it('given istiod metadata should name the object of its config path', () => {
    const meta = { filter_metadata: { istio: { config: '/apis/networking.istio.io/v1/namespaces/shop/destination-rule/cart' } } };
    assert.equal(configRef(meta), 'cart.shop');
  });

  it('given no metadata or a source it cannot read should answer an empty string', () => {
    assert.equal(configRef(undefined), '');
    assert.equal(configRef({ filter_metadata: { mesh: { sources: ['not a source'] } } }), '');
  });
});
