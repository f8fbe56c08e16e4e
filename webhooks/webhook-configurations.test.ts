import assert from 'node:assert/strict';
import { checkInjection, injectionWebhookConfiguration } from './webhook-configurations.js';

const target = { url: 'https://127.0.0.1:15017' };
const configs = [
  injectionWebhookConfiguration({ revision: 'default', target, caBundlePem: 'x' }),
  injectionWebhookConfiguration({ revision: 'canary', target, caBundlePem: 'x' }),
  injectionWebhookConfiguration({ revision: 'canary', tag: 'prod', target, caBundlePem: 'x' }),
];

describe('injection webhook configurations and check-inject', () => {
  const cases: { name: string; ns: Record<string, string>; pod: Record<string, string>; want: string[]; reason: RegExp | undefined }[] = [
    { name: 'namespace mesh-injection=enabled', ns: { 'mesh-injection': 'enabled' }, pod: {}, want: ['mesh-sidecar-injector/namespace.sidecar-injector.mesh.io'], reason: /Namespace label mesh-injection=enabled/ },
    { name: 'namespace mesh.io/rev=canary', ns: { 'mesh.io/rev': 'canary' }, pod: {}, want: ['mesh-sidecar-injector-canary/rev.namespace.sidecar-injector.mesh.io'], reason: /Namespace label mesh.io\/rev=canary/ },
    { name: 'namespace mesh.io/rev=prod (a tag)', ns: { 'mesh.io/rev': 'prod' }, pod: {}, want: ['mesh-revision-tag-prod/rev.namespace.sidecar-injector.mesh.io'], reason: /mesh.io\/rev=prod/ },
    { name: 'pod mesh.io/rev=canary in an unlabelled namespace', ns: {}, pod: { 'mesh.io/rev': 'canary' }, want: ['mesh-sidecar-injector-canary/rev.object.sidecar-injector.mesh.io'], reason: /Pod label mesh.io\/rev=canary/ },
    { name: 'pod sidecar.mesh.io/inject=true in an unlabelled namespace', ns: {}, pod: { 'sidecar.mesh.io/inject': 'true' }, want: ['mesh-sidecar-injector/object.sidecar-injector.mesh.io'], reason: /Pod label sidecar.mesh.io\/inject=true/ },
    { name: 'pod sidecar.mesh.io/inject=false in an enabled namespace', ns: { 'mesh-injection': 'enabled' }, pod: { 'sidecar.mesh.io/inject': 'false' }, want: [], reason: undefined },
    { name: 'an unlabelled namespace and pod', ns: {}, pod: {}, want: [], reason: undefined },
  ];
  for (const c of cases) {
    it(`given ${c.name} should select ${c.want.length === 0 ? 'no webhook' : c.want.join(', ')}`, () => {
      const verdicts = checkInjection(configs, c.ns, c.pod);
      assert.equal(verdicts.length, 6);
      const chosen = verdicts.filter((v) => v.injected);
      assert.deepEqual(chosen.map((v) => v.webhook), c.want);
      if (c.reason) assert.match(chosen[0]!.reason, c.reason);
    });
  }

  it('given a pod that opts out should say which label kept each webhook away', () => {
    const v = checkInjection(configs.slice(0, 1), { 'mesh-injection': 'enabled' }, { 'sidecar.mesh.io/inject': 'false' });
    assert.match(v[0]!.reason, /pod label sidecar.mesh.io\/inject=false/);
  });
});
