import assert from 'node:assert/strict';
import { InjectionConfigError, parseInjectionConfig, parseInjectionValues, parseInjectorMeshConfig } from './injection-config.js';

describe('injector inputs', () => {
  const bad = [
    { name: 'a policy that is neither enabled nor disabled', parse: () => parseInjectionConfig('policy: sometimes'), want: /config.policy: "sometimes" is not/ },
    { name: 'an unknown field', parse: () => parseInjectionConfig('polcy: enabled'), want: /unknown field polcy/ },
    { name: 'a template that is not a string', parse: () => parseInjectionConfig('templates:\n  sidecar: [1]'), want: /config.templates.sidecar: must be a string/ },
    { name: 'a selector operator that does not exist', parse: () => parseInjectionConfig('neverInjectSelector:\n- matchExpressions:\n  - {key: a, operator: Like}'), want: /neverInjectSelector\[0\].matchExpressions\[0\].operator: "Like" is not one of In, NotIn, Exists, DoesNotExist/ },
    { name: 'an alias that is not a list', parse: () => parseInjectionConfig('aliases:\n  grpc: grpc-agent'), want: /aliases.grpc: must be a list/ },
    { name: 'values that are not YAML', parse: () => parseInjectionValues('{"global": '), want: /values: not valid YAML/ },
    { name: 'an unresolved alias in the values', parse: () => parseInjectionValues('a: *nope'), want: /values: not valid YAML/ },
    {
      name: 'a billion-laughs injection config (the shared bounded reader)',
      parse: () => parseInjectionConfig(['a: &a ["x","x","x","x","x","x","x","x","x"]', ...'bcdefghi'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill('*' + 'abcdefghi'[i]).join(',')}]`), 'policy: *i'].join('\n')),
      want: /config: not valid YAML/,
    },
    { name: 'a mesh config trustDomain that is a number', parse: () => parseInjectorMeshConfig('trustDomain: 3'), want: /mesh config.trustDomain: must be a string/ },
  ];
  for (const c of bad) {
    it(`given ${c.name} should throw InjectionConfigError naming the field`, () => {
      assert.throws(c.parse, (e: unknown) => e instanceof InjectionConfigError && c.want.test(e.message));
    });
  }

  it('given the legacy template key and a custom template should keep the built-ins and replace sidecar', () => {
    const c = parseInjectionConfig('template: "spec: {}"\ntemplates:\n  mine: "metadata: {}"\n');
    assert.equal(c.templates['sidecar'], 'spec: {}');
    assert.equal(c.templates['mine'], 'metadata: {}');
    assert.match(c.templates['gateway']!, /mesh-proxy/);
  });

  it('given partial values should merge them over the defaults', () => {
    const v = parseInjectionValues('{"global": {"proxy": {"statusPort": 0}}}') as { global: { proxy: { statusPort: number; clusterDomain: string } } };
    assert.equal(v.global.proxy.statusPort, 0);
    assert.equal(v.global.proxy.clusterDomain, 'cluster.local');
  });
});
