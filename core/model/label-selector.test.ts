import assert from 'node:assert/strict';
import { labelSelectorMatches, LabelSelectorError, parseLabelSelectors } from './label-selector.js';

describe('label selectors', () => {
  const matches: { name: string; sel: Parameters<typeof labelSelectorMatches>[0]; labels: Record<string, string>; want: boolean }[] = [
    { name: 'given matchLabels that all match should match', sel: { matchLabels: { a: '1', b: '2' } }, labels: { a: '1', b: '2', c: '3' }, want: true },
    { name: 'given one matchLabel that differs should not match', sel: { matchLabels: { a: '1', b: '2' } }, labels: { a: '1', b: 'x' }, want: false },
    { name: 'given In with the label absent should not match', sel: { matchExpressions: [{ key: 'a', operator: 'In', values: ['1'] }] }, labels: {}, want: false },
    { name: 'given NotIn with the label absent should match', sel: { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, labels: {}, want: true },
    { name: 'given Exists and an empty label value should match', sel: { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, labels: { a: '' }, want: true },
    { name: 'given an unknown operator should match nothing', sel: { matchExpressions: [{ key: 'a', operator: 'Near' }] }, labels: { a: '1' }, want: false },
    { name: 'given an empty selector should match everything', sel: {}, labels: { a: '1' }, want: true },
  ];
  for (const c of matches) it(c.name, () => assert.equal(labelSelectorMatches(c.sel, c.labels), c.want));

  it('given well-formed raw selectors should parse them into the matcher\'s form', () => {
    const got = parseLabelSelectors([{ matchLabels: { env: 'prod' } }, { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }, { key: 'tier', operator: 'In', values: ['a'] }] }], 'x');
    assert.deepEqual(got, [{ matchLabels: { env: 'prod' } }, { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }, { key: 'tier', operator: 'In', values: ['a'] }] }]);
    assert.deepEqual(parseLabelSelectors(undefined, 'x'), []);
  });

  const bad = [
    { name: 'given a map instead of a list should say a list is needed', raw: { matchLabels: {} }, error: /^sel: must be a list of label selectors$/ },
    { name: 'given an item that is not an object should name the item', raw: ['env=prod'], error: /^sel\[0\]: must be a label selector/ },
    { name: 'given a label value that is not a string should name the label', raw: [{ matchLabels: { env: 1 } }], error: /^sel\[0\]\.matchLabels\.env: must be a string$/ },
    { name: 'given an expression without a key should name it', raw: [{ matchExpressions: [{ operator: 'Exists' }] }], error: /^sel\[0\]\.matchExpressions\[0\]\.key: required$/ },
    { name: 'given an unknown operator should list the known ones', raw: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }], error: /\.operator: "Near" is not one of In, NotIn, Exists, DoesNotExist$/ },
    { name: 'given NotIn without values should say it needs one', raw: [{ matchExpressions: [{ key: 'a', operator: 'NotIn' }] }], error: /\.values: NotIn needs at least one value$/ },
    { name: 'given values that are not strings should say so', raw: [{ matchExpressions: [{ key: 'a', operator: 'In', values: [1] }] }], error: /\.values: must be a list of strings$/ },
  ];
  for (const c of bad) {
    it(c.name, () => assert.throws(() => parseLabelSelectors(c.raw, 'sel'), (e: unknown) => e instanceof LabelSelectorError && c.error.test(e.message)));
  }
});
