import assert from 'node:assert/strict';
import { OWNING_RESOURCE_LABEL, OWNING_RESOURCE_NAMESPACE_LABEL, REVISION_LABEL } from '../install/index.js';
import { desiredObjects, DesiredStateError, MESH_OPERATOR_CRD_NAME } from './desired-objects.js';

describe('desiredObjects', () => {
  it('given a demo MeshOperator should render every component, labelled for the resource, without the MeshOperator CRD', () => {
    const d = desiredObjects({ name: 'demo', namespace: 'mesh-system', spec: { profile: 'demo' }, force: false });
    assert.deepEqual(d.components, ['Base', 'Pilot', 'IngressGateways', 'EgressGateways']);
    assert.equal(d.problems, '');
    assert.ok(d.objects.some((o) => o.kind === 'Deployment' && o.name === 'meshd'));
    assert.ok(d.objects.some((o) => o.kind === 'CustomResourceDefinition' && o.name === 'virtualservices.networking.mesh.io'));
    assert.equal(d.objects.find((o) => o.name === MESH_OPERATOR_CRD_NAME), undefined);
    for (const o of d.objects) {
      const labels = (o.object['metadata'] as { labels: Record<string, string> }).labels;
      assert.equal(labels[OWNING_RESOURCE_LABEL], 'demo');
      assert.equal(labels[OWNING_RESOURCE_NAMESPACE_LABEL], 'mesh-system');
      assert.equal(labels[REVISION_LABEL], 'default');
    }
  });

  it('given the demo profile (PILOT_TRACE_SAMPLING in pilot env) should render meshd with no duplicate env name, which server-side apply refuses', () => {
    const d = desiredObjects({ name: 'demo', namespace: 'mesh-system', spec: { profile: 'demo' }, force: false });
    const meshd = d.objects.find((o) => o.kind === 'Deployment' && o.name === 'meshd')!.object as { spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } } };
    const env = meshd.spec.template.spec.containers[0]!.env;
    const names = env.map((e) => e.name);
    assert.deepEqual(names.filter((n, i) => names.indexOf(n) !== i), []);
    assert.equal(env.find((e) => e.name === 'PILOT_TRACE_SAMPLING')?.value, '100');
  });

  it('given a revision should own the objects for that revision', () => {
    const d = desiredObjects({ name: 'canary', namespace: 'mesh-system', spec: { revision: 'canary' }, force: false });
    assert.deepEqual(d.owner, { name: 'canary', namespace: 'mesh-system', revision: 'canary' });
    assert.ok(d.objects.some((o) => o.kind === 'Deployment' && o.name === 'meshd-canary'));
  });

  it('given an invalid revision should throw a validation error naming the resource and the field', () => {
    assert.throws(
      () => desiredObjects({ name: 'broken', namespace: 'ns1', spec: { revision: 'Bad_Rev' }, force: false }),
      (e: unknown) => e instanceof DesiredStateError && e.kind === 'validation' && /^MeshOperator ns1\/broken: invalid MeshOperator: spec\.revision: /.test(e.message),
    );
  });

  it('given an invalid spec and force should proceed and report the problems', () => {
    const d = desiredObjects({ name: 'x', namespace: 'ns1', spec: { revision: 'Bad_Rev' }, force: true });
    assert.match(d.problems, /^MeshOperator ns1\/x: invalid MeshOperator: spec\.revision: /);
    assert.ok(d.objects.some((o) => o.kind === 'Deployment' && o.name === 'meshd-Bad_Rev'));
  });

  it('given a spec that passes with force but a chart cannot render should throw a render error naming the resource', () => {
    assert.throws(
      () => desiredObjects({ name: 'x', namespace: 'ns1', spec: { components: { ingressGateways: [{ enabled: true }] } }, force: true }),
      (e: unknown) => e instanceof DesiredStateError && e.kind === 'render' && /^MeshOperator ns1\/x: rendering: .*ingressGateways\[0\]\.name is required/.test(e.message),
    );
  });

  it('given a profile that does not exist should throw a merge error naming the resource and the profile', () => {
    assert.throws(
      () => desiredObjects({ name: 'x', namespace: 'ns1', spec: { profile: 'nosuch' }, force: true }),
      (e: unknown) => e instanceof DesiredStateError && e.kind === 'merge' && /^MeshOperator ns1\/x: profile "nosuch" does not exist/.test(e.message),
    );
  });
});
