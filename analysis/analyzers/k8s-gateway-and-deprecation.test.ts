import assert from 'node:assert/strict';
import { analyzerTable } from '../testing/analyzer-table.js';
import { conditionAnalyzer } from './conditions.js';
import { deprecationAnalyzer } from './deprecation.js';
import { k8sGatewayCrdVersionAnalyzer, k8sGatewaySelectorAnalyzer, parseLenientVersion } from './k8s-gateway-analyzers.js';

describe('k8sgateway.SelectorAnalyzer', () => {
  analyzerTable(
    [k8sGatewaySelectorAnalyzer],
    [{ name: 'given policies selecting a Gateway API gateway\'s pods by labels should report those, not targetRef or ordinary selectors', files: ['k8s-gateway.yaml'], expected: ['IST0166 AuthorizationPolicy default/gateway-by-selector', 'IST0166 Telemetry default/gateway-tracing'] }],
  );
});

describe('k8sgateway.CRDVersionAnalyzer', () => {
  analyzerTable(
    [k8sGatewayCrdVersionAnalyzer],
    [{ name: 'given Gateway API CRDs with bundle versions should report only those below their minimum (prerelease ignored)', files: ['k8s-gateway.yaml'], expected: ['IST0156 CustomResourceDefinition tlsroutes.gateway.networking.k8s.io'] }],
  );
  it('given lenient versions should read major.minor.patch and keep the text', () => {
    assert.deepEqual(parseLenientVersion('v1.4.1'), { core: [1, 4, 1], text: '1.4.1' });
    assert.deepEqual(parseLenientVersion('1.5'), { core: [1, 5, 0], text: '1.5.0' });
    assert.deepEqual(parseLenientVersion('v1.5.0-rc.1'), { core: [1, 5, 0], text: '1.5.0-rc.1' });
    assert.equal(parseLenientVersion('latest'), undefined);
  });
});

describe('conditions.ConditionAnalyzer', () => {
  analyzerTable(
    [conditionAnalyzer],
    [{ name: 'given status conditions should report each False one, not True ones', files: ['conditions.yaml'], expected: ['IST0171 Service default/ratings', 'IST0171 AuthorizationPolicy default/deny-all'] }],
  );
});

describe('deprecation.DeprecationAnalyzer', () => {
  analyzerTable(
    [deprecationAnalyzer],
    [{ name: 'given a delay by percent, a Sidecar egressProxy and a removed rbac CRD should report each once', files: ['deprecation.yaml'], expected: ['IST0002 VirtualService default/ratings-delay', 'IST0002 Sidecar default/egress-proxy', 'IST0002 CustomResourceDefinition serviceroles.rbac.mesh.io'] }],
  );
});
