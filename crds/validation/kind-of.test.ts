import assert from 'node:assert/strict';
import { kindOf, UnknownKindError } from './kind-of.js';
import { pointerToPath } from './schema-validator.js';
import { validateConfig } from './validate-config.js';

describe('kindOf', () => {
  it('given a served apiVersion and kind should resolve the kind', () => {
    const r = kindOf('networking.mesh.io/v1alpha3', 'VirtualService');
    assert.equal(r.name, 'VirtualService');
    assert.equal(r.version, 'v1alpha3');
  });

  const bad: { name: string; apiVersion: string; kind: string; field: string; message: RegExp }[] = [
    { name: 'an Istio group', apiVersion: 'networking.istio.io/v1', kind: 'VirtualService', field: 'apiVersion', message: /not a mesh API group/ },
    { name: 'no version', apiVersion: 'networking.mesh.io', kind: 'VirtualService', field: 'apiVersion', message: /<group>\/<version>/ },
    { name: 'an unserved version', apiVersion: 'networking.mesh.io/v2', kind: 'VirtualService', field: 'apiVersion', message: /served: v1, v1alpha3, v1beta1/ },
    { name: 'an unknown kind', apiVersion: 'networking.mesh.io/v1', kind: 'Route', field: 'kind', message: /unknown kind "Route"/ },
    { name: 'a kind of another group', apiVersion: 'security.mesh.io/v1', kind: 'VirtualService', field: 'kind', message: /unknown kind/ },
  ];
  for (const c of bad) {
    it(`given ${c.name} should throw UnknownKindError on ${c.field}`, () => {
      assert.throws(() => kindOf(c.apiVersion, c.kind), (e: unknown) => {
        assert.ok(e instanceof UnknownKindError);
        assert.equal(e.field, c.field);
        assert.match(e.message, c.message);
        return true;
      });
    });
  }
});

describe('validateConfig input shapes', () => {
  const cases: { name: string; input: unknown; path: string }[] = [
    { name: 'a string', input: 'hello', path: '' },
    { name: 'no apiVersion', input: { kind: 'VirtualService' }, path: 'apiVersion' },
    { name: 'no metadata', input: { apiVersion: 'networking.mesh.io/v1', kind: 'WorkloadEntry', spec: { address: '1.1.1.1' } }, path: 'metadata' },
    { name: 'no spec', input: { apiVersion: 'networking.mesh.io/v1', kind: 'WorkloadEntry', metadata: { name: 'a' } }, path: 'spec' },
    {
      name: 'a bad namespace',
      input: { apiVersion: 'networking.mesh.io/v1', kind: 'WorkloadEntry', metadata: { name: 'a', namespace: 'a.b' }, spec: { address: '1.1.1.1' } },
      path: 'metadata.namespace',
    },
  ];
  for (const c of cases) {
    it(`given ${c.name} should report an error at "${c.path}"`, () => {
      const r = validateConfig(c.input);
      assert.ok(!r.ok);
      assert.ok(r.errors.some((e) => e.path === c.path), JSON.stringify(r.errors));
    });
  }

  it('given a valid object should return it typed', () => {
    const r = validateConfig({ apiVersion: 'networking.mesh.io/v1', kind: 'WorkloadEntry', metadata: { name: 'a' }, spec: { address: '1.1.1.1' } });
    assert.ok(r.ok);
    assert.equal(r.config.kind, 'WorkloadEntry');
    if (r.config.kind === 'WorkloadEntry') assert.equal(r.config.spec.address, '1.1.1.1');
  });

  it('given server-set metadata fields should accept them', () => {
    const r = validateConfig({
      apiVersion: 'networking.mesh.io/v1',
      kind: 'WorkloadEntry',
      metadata: {
        name: 'a',
        namespace: 'ns',
        resourceVersion: '42',
        generation: 3,
        uid: '8f7c1c9e-0000-4000-8000-000000000001',
        creationTimestamp: '2026-01-01T00:00:00Z',
        managedFields: [{ manager: 'kubectl' }],
      },
      spec: { address: '1.1.1.1' },
    });
    assert.ok(r.ok, JSON.stringify(r));
  });

  it('given JSON pointers with map keys should render readable paths', () => {
    assert.equal(pointerToPath('/spec/http/0/match/1/headers/x-user'), 'spec.http[0].match[1].headers.x-user');
    assert.equal(pointerToPath('/spec/selector/matchLabels/app.kubernetes.io~1name'), 'spec.selector.matchLabels["app.kubernetes.io/name"]');
  });

  it('given the validated object should render a numeric map key as a key and an array position as an index', () => {
    const root = { spec: { ports: { '9': 'x' }, http: [{ match: [{}, {}] }] } };
    assert.equal(pointerToPath('/spec/ports/9', root), 'spec.ports["9"]');
    assert.equal(pointerToPath('/spec/http/0/match/1', root), 'spec.http[0].match[1]');
  });

  it('given a WorkloadEntry port that is an object under a numeric name (fuzz finding) should refuse it once, at the schema, naming the key', () => {
    const r = validateConfig({
      apiVersion: 'networking.mesh.io/v1', kind: 'WorkloadEntry', metadata: { name: 'w', namespace: 'ns' },
      spec: { address: '2.2.2.2', ports: { '9': { a: 'b' } } },
    });
    assert.equal(r.ok, false);
    assert.deepEqual(!r.ok && r.errors.map((e) => `${e.path}: ${e.message}`), ['spec.ports["9"]: must be of type integer, got {"a":"b"}']);
  });
});
