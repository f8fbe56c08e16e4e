import assert from 'node:assert/strict';
import { validateConfig } from './validate-config.js';

const vs = (extra: Record<string, unknown>): unknown => ({
  apiVersion: 'networking.mesh.io/v1',
  kind: 'VirtualService',
  metadata: { name: 'echo', namespace: 'demo' },
  spec: {
    hosts: ['echo'],
    http: [{ route: [{ destination: { host: 'echo', subset: 'v1' }, weight: 0 }, { destination: { host: 'echo', subset: 'v2' }, weight: 0 }] }],
    ...extra,
  },
});

describe('validateConfig (errors in one pass)', () => {
  it('given a schema error and a semantic error in one document should report both', () => {
    const r = validateConfig(vs({ notAField: 1 }));
    assert.ok(!r.ok);
    const text = r.errors.map((e) => `${e.layer} ${e.path}: ${e.message}`);
    assert.ok(text.some((t) => t.startsWith('schema spec.notAField')), text.join('\n'));
    assert.ok(text.some((t) => t.startsWith('semantic spec.http[0].route: total destination weight = 0')), text.join('\n'));
  });

  it('given a schema error that leaves the document unfit for semantic checks should report the schema error, not throw', () => {
    const r = validateConfig({ apiVersion: 'networking.mesh.io/v1', kind: 'VirtualService', metadata: { name: 'x' }, spec: { http: 'not-a-list', hosts: 7 } });
    assert.ok(!r.ok);
    assert.ok(r.errors.every((e) => e.layer === 'schema' || e.layer === 'semantic'));
    assert.ok(r.errors.some((e) => e.layer === 'schema'));
  });

  it('given a field holding kilobytes of the wrong type (a torn or pasted file) should quote the value cut short with its length', () => {
    const long = 'x'.repeat(4000);
    const r = validateConfig({ apiVersion: 'networking.mesh.io/v1', kind: 'VirtualService', metadata: { name: 'x', namespace: 'd' }, spec: long });
    assert.ok(!r.ok);
    const spec = r.errors.find((e) => e.path === 'spec');
    assert.equal(spec?.message, `must be of type object, got "${'x'.repeat(59)}... (a string of 4000 characters)`);
    const list = validateConfig({ apiVersion: 'networking.mesh.io/v1', kind: 'VirtualService', metadata: { name: 'x', namespace: 'd' }, spec: { hosts: 'h'.repeat(290) } });
    assert.ok(!list.ok);
    assert.equal(list.errors.find((e) => e.path === 'spec.hosts')?.message, `must be of type array, got "${'h'.repeat(290)}"`, 'a value up to 300 characters is quoted whole');
  });

  it('given a semantic check meeting kilobytes in one field should quote the value cut short with its length', () => {
    const r = validateConfig({
      apiVersion: 'security.mesh.io/v1',
      kind: 'AuthorizationPolicy',
      metadata: { name: 'p', namespace: 'd' },
      spec: { rules: [{ from: [{ source: { principals: [`spiffe://${'h'.repeat(4000)}`] } }] }] },
    });
    assert.ok(!r.ok);
    const e = r.errors.find((x) => x.path === 'spec.rules[0].from[0].source.principals[0]');
    assert.equal(e?.message, `principal "spiffe://${'h'.repeat(51)}..." (4009 characters) must not include the spiffe:// prefix (use <trust-domain>/ns/<ns>/sa/<sa>)`);
  });

  // NOTE: regression seeds found by fuzzing: semantic checks that met the wrong type printed it as
  // "[object Object]" or "undefined" next to the schema error that already named the field.
  const wrongTypes = [
    {
      name: 'a subset name that is a list',
      obj: { apiVersion: 'networking.mesh.io/v1', kind: 'DestinationRule', metadata: { name: 'r', namespace: 'd' }, spec: { host: 'r', subsets: [{ name: [{ name: 'x' }] }] } },
      schemaPath: 'spec.subsets[0].name',
    },
    {
      name: 'a probe tcpSocket that is a list',
      obj: { apiVersion: 'networking.mesh.io/v1', kind: 'WorkloadGroup', metadata: { name: 'g', namespace: 'd' }, spec: { template: {}, probe: { tcpSocket: ['x'] } } },
      schemaPath: 'spec.probe.tcpSocket',
    },
    {
      name: 'an exportTo entry that is an object',
      obj: { apiVersion: 'networking.mesh.io/v1', kind: 'VirtualService', metadata: { name: 'v', namespace: 'd' }, spec: { hosts: ['a'], exportTo: [{}] } },
      schemaPath: 'spec.exportTo[0]',
    },
    {
      name: 'an EnvoyFilter applyTo that is an object',
      obj: { apiVersion: 'networking.mesh.io/v1alpha3', kind: 'EnvoyFilter', metadata: { name: 'e', namespace: 'd' }, spec: { configPatches: [{ applyTo: {}, match: { listener: {} }, patch: { operation: 'MERGE', value: {} } }] } },
      schemaPath: 'spec.configPatches[0].applyTo',
    },
    {
      name: 'a locality weight that is an object',
      obj: { apiVersion: 'networking.mesh.io/v1', kind: 'DestinationRule', metadata: { name: 'r', namespace: 'd' }, spec: { host: 'r', trafficPolicy: { loadBalancer: { localityLbSetting: { distribute: [{ from: 'a/b/*', to: { 'a/b/*': 80, 'a/c/*': {} } }] } } } } },
      schemaPath: 'spec.trafficPolicy.loadBalancer.localityLbSetting.distribute[0].to["a/c/*"]',
    },
  ];
  for (const c of wrongTypes) {
    it(`given ${c.name} should report the schema error alone, with no message printing undefined or [object Object]`, () => {
      const r = validateConfig(c.obj);
      assert.ok(!r.ok);
      const text = r.errors.map((e) => `${e.layer} ${e.path}: ${e.message}`);
      assert.ok(r.errors.some((e) => e.layer === 'schema' && e.path === c.schemaPath), text.join('\n'));
      assert.ok(text.every((t) => !/undefined|\[object Object\]/.test(t)), text.join('\n'));
    });
  }

  it('given an apiVersion with a line break should refuse it with a one-line message that shows the break escaped', () => {
    const r = validateConfig({ apiVersion: 'ne{---\n.mesh.io/v1', kind: 'VirtualService', metadata: { name: 'v' }, spec: {} });
    assert.ok(!r.ok);
    assert.equal(r.errors[0]?.path, 'apiVersion');
    assert.ok(!r.errors[0]!.message.includes('\n'), r.errors[0]!.message);
    assert.match(r.errors[0]!.message, /ne\{---\\n\.mesh\.io/);
  });
});
