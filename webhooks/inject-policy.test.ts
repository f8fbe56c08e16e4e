import assert from 'node:assert/strict';
import { defaultInjectionConfig, parseInjectionConfig } from './injection-config.js';
import { injectRequired, selectorMatches } from './inject-policy.js';

const enabled = defaultInjectionConfig();
const disabled = parseInjectionConfig('policy: disabled\nalwaysInjectSelector:\n- matchLabels: {tier: always}\n');
const withNever = parseInjectionConfig('neverInjectSelector:\n- matchExpressions:\n  - {key: skip, operator: Exists}\n');
const pod = (labels: Record<string, string> = {}, annotations: Record<string, string> = {}, extra: { namespace?: string; hostNetwork?: boolean } = {}) => ({
  namespace: extra.namespace ?? 'app',
  labels,
  annotations,
  hostNetwork: extra.hostNetwork ?? false,
});

describe('injectRequired', () => {
  const cases = [
    { name: 'policy enabled and nothing set', config: enabled, pod: pod(), inject: true, reason: /policy is enabled/ },
    { name: 'annotation sidecar.mesh.io/inject=false', config: enabled, pod: pod({}, { 'sidecar.mesh.io/inject': 'false' }), inject: false, reason: /annotation sidecar.mesh.io\/inject=false/ },
    { name: 'label true over annotation false', config: enabled, pod: pod({ 'sidecar.mesh.io/inject': 'true' }, { 'sidecar.mesh.io/inject': 'false' }), inject: true, reason: /label sidecar.mesh.io\/inject=true/ },
    { name: 'label "no"', config: enabled, pod: pod({ 'sidecar.mesh.io/inject': 'no' }), inject: false, reason: /label/ },
    { name: 'annotation "Yes" (case-insensitive)', config: disabled, pod: pod({}, { 'sidecar.mesh.io/inject': 'Yes' }), inject: true, reason: /annotation/ },
    { name: 'policy disabled and nothing set', config: disabled, pod: pod(), inject: false, reason: /policy is disabled/ },
    { name: 'policy disabled and alwaysInjectSelector matches', config: disabled, pod: pod({ tier: 'always' }), inject: true, reason: /alwaysInjectSelector \{tier=always\}/ },
    { name: 'alwaysInjectSelector matches but the pod opts out', config: disabled, pod: pod({ tier: 'always', 'sidecar.mesh.io/inject': 'false' }), inject: false, reason: /label/ },
    { name: 'neverInjectSelector matches', config: withNever, pod: pod({ skip: '' }), inject: false, reason: /neverInjectSelector \{skip Exists\}/ },
    { name: 'host network', config: enabled, pod: pod({}, {}, { hostNetwork: true }), inject: false, reason: /host network/ },
    { name: 'kube-system', config: enabled, pod: pod({}, {}, { namespace: 'kube-system' }), inject: false, reason: /kube-system/ },
    { name: 'already injected', config: enabled, pod: pod({}, { 'sidecar.mesh.io/status': '{}' }), inject: false, reason: /already injected/ },
  ];
  for (const c of cases) {
    it(`given ${c.name} should ${c.inject ? '' : 'not '}inject and say why`, () => {
      const d = injectRequired(c.config, c.pod);
      assert.equal(d.inject, c.inject);
      assert.match(d.reason, c.reason);
    });
  }

  it('given selector operators should match as Kubernetes does', () => {
    const l = { a: '1', b: '2' };
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '3'] }] }, l), true);
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, l), false);
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'c', operator: 'NotIn', values: ['1'] }] }, l), true);
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'c', operator: 'DoesNotExist' }] }, l), true);
    assert.equal(selectorMatches({ matchLabels: { a: '1', b: '3' } }, l), false);
    assert.equal(selectorMatches({}, l), false);
  });
});
