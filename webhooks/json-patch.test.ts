import assert from 'node:assert/strict';
import { applyPatch, createPatch } from './json-patch.js';

describe('JSON patch', () => {
  const cases = [
    { name: 'added and removed keys', a: { x: 1, y: 2 }, b: { x: 1, z: 3 } },
    { name: 'a key with / and ~', a: { m: {} }, b: { m: { 'sidecar.mesh.io/status': '{}', 'a~b': 1 } } },
    { name: 'a longer list', a: { l: [1, { n: 'a' }] }, b: { l: [1, { n: 'b' }, 3, 4] } },
    { name: 'a shorter list', a: { l: [1, 2, 3, 4] }, b: { l: [0] } },
    { name: 'a type change', a: { v: [1] }, b: { v: { k: 1 } } },
    { name: 'equal documents', a: { v: [1, { k: null }] }, b: { v: [1, { k: null }] } },
  ];
  for (const c of cases) {
    it(`given ${c.name} should produce a patch that turns the first into the second`, () => {
      const ops = createPatch(c.a, c.b);
      assert.deepEqual(applyPatch(c.a, ops), c.b);
      if (c.name === 'equal documents') assert.deepEqual(ops, []);
    });
  }

  it('given a key with / and ~ should escape it as RFC 6901 says', () => {
    assert.deepEqual(createPatch({}, { 'a/b~c': 1 }), [{ op: 'add', path: '/a~1b~0c', value: 1 }]);
  });
});
