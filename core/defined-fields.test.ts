import assert from 'node:assert/strict';
import { definedFields } from './defined-fields.js';

describe('definedFields', () => {
  it('given some named fields unset should copy the set ones (false included) and leave the unset ones and unnamed ones absent', () => {
    const o: { a?: boolean; b?: number; c?: string; d: string } = { a: false, c: undefined, d: 'not named' };
    const got = definedFields(o, ['a', 'b', 'c']);
    assert.deepEqual(got, { a: false });
    assert.equal('c' in got, false);
  });
});
