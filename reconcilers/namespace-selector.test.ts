import assert from 'node:assert/strict';
import { defaultMeshConfig } from '../core/index.js';
import { DiscoverySelectorError, discoverySelectorsOf, matchesLabelSelector, selectsNamespace, type LabelSelector } from './namespace-selector.js';

describe('namespace selectors', () => {
  const labels = { env: 'prod', team: 'a' };
  const matchCases: { name: string; selector: LabelSelector; want: boolean }[] = [
    { name: 'given an empty selector, should match', selector: {}, want: true },
    { name: 'given matching matchLabels, should match', selector: { matchLabels: { env: 'prod' } }, want: true },
    { name: 'given a differing label value, should not match', selector: { matchLabels: { env: 'dev' } }, want: false },
    { name: 'given In with the value, should match', selector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev', 'prod'] }] }, want: true },
    { name: 'given In on a missing key, should not match', selector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['x'] }] }, want: false },
    { name: 'given NotIn with the value, should not match', selector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, want: false },
    { name: 'given NotIn on a missing key, should match', selector: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['x'] }] }, want: true },
    { name: 'given Exists on a present key, should match', selector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] }, want: true },
    { name: 'given DoesNotExist on a present key, should not match', selector: { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] }, want: false },
    { name: 'given labels and an expression that both hold, should match', selector: { matchLabels: { team: 'a' }, matchExpressions: [{ key: 'env', operator: 'Exists' }] }, want: true },
    { name: 'given labels that hold and an expression that fails, should not match', selector: { matchLabels: { team: 'a' }, matchExpressions: [{ key: 'x', operator: 'Exists' }] }, want: false },
  ];
  for (const c of matchCases) it(c.name, () => assert.equal(matchesLabelSelector(c.selector, labels), c.want));

  it('given no discovery selectors, should select every namespace', () => assert.equal(selectsNamespace([], undefined), true));
  it('given several discovery selectors, should select a namespace any one of them matches', () => {
    assert.equal(selectsNamespace([{ matchLabels: { env: 'dev' } }, { matchLabels: { team: 'a' } }], labels), true);
    assert.equal(selectsNamespace([{ matchLabels: { env: 'dev' } }], labels), false);
  });

  const parseCases: { name: string; raw: unknown; want?: LabelSelector[]; error?: RegExp }[] = [
    { name: 'given no discoverySelectors, should return none', raw: undefined, want: [] },
    { name: 'given valid selectors, should return them', raw: [{ matchLabels: { a: 'b' } }, { matchExpressions: [{ key: 'k', operator: 'Exists' }] }], want: [{ matchLabels: { a: 'b' } }, { matchExpressions: [{ key: 'k', operator: 'Exists', values: [] }] }] },
    { name: 'given a non-list, should name the field', raw: { matchLabels: {} }, error: /^mesh config discoverySelectors: must be a list/ },
    { name: 'given a bad operator, should name the entry and the operator', raw: [{}, { matchExpressions: [{ key: 'k', operator: 'Equals' }] }], error: /discoverySelectors\[1\]\.matchExpressions\[0\]\.operator: "Equals" is not one of/ },
    { name: 'given a non-string label, should name it', raw: [{ matchLabels: { a: 1 } }], error: /discoverySelectors\[0\]\.matchLabels\.a: must be a string/ },
    { name: 'given In without values, should refuse', raw: [{ matchExpressions: [{ key: 'k', operator: 'In' }] }], error: /values: In needs at least one value/ },
    { name: 'given an unknown field, should name it', raw: [{ matchLabel: {} }], error: /discoverySelectors\[0\]: unknown field matchLabel/ },
  ];
  for (const c of parseCases) {
    it(c.name, () => {
      const meshConfig = { ...defaultMeshConfig(), extra: c.raw === undefined ? {} : { discoverySelectors: c.raw } };
      if (c.error) assert.throws(() => discoverySelectorsOf(meshConfig), (err: Error) => err instanceof DiscoverySelectorError && c.error!.test(err.message));
      else assert.deepEqual(discoverySelectorsOf(meshConfig), c.want);
    });
  }
});
