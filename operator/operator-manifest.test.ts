import assert from 'node:assert/strict';
import { COMPONENT_LABEL, REVISION_LABEL } from '../install/index.js';
import { MESH_OPERATOR_CRD_NAME } from './desired-objects.js';
import { operatorManifest, type OperatorManifestOptions } from './operator-manifest.js';

const BASE: OperatorManifestOptions = { namespace: 'mesh-operator', revision: '', hub: 'unknown', tag: 'unknown', imagePullSecrets: [], watchedNamespaces: 'mesh-system' };

type Deployment = { spec: { template: { spec: { serviceAccountName: string; imagePullSecrets?: { name: string }[]; containers: { image: string; command: string[]; env: { name: string; value: string }[] }[] } } } };

describe('operatorManifest', () => {
  it('given the defaults should hold the namespace, CRD, ServiceAccount, RBAC, Deployment and Service, labelled as the Operator component', () => {
    const objects = operatorManifest(BASE);
    assert.deepEqual(objects.map((o) => `${o.kind} ${o.namespace}/${o.name}`), [
      'Namespace /mesh-operator',
      `CustomResourceDefinition /${MESH_OPERATOR_CRD_NAME}`,
      'ServiceAccount mesh-operator/mesh-operator',
      'ClusterRole /mesh-operator',
      'ClusterRoleBinding /mesh-operator',
      'Deployment mesh-operator/mesh-operator',
      'Service mesh-operator/mesh-operator',
    ]);
    for (const o of objects) {
      const labels = (o.object['metadata'] as { labels: Record<string, string> }).labels;
      assert.equal(labels[COMPONENT_LABEL], 'Operator', o.name);
      assert.equal(labels[REVISION_LABEL], 'default', o.name);
    }
    const d = objects.find((o) => o.kind === 'Deployment')!.object as unknown as Deployment;
    const c = d.spec.template.spec.containers[0]!;
    assert.equal(c.image, 'docker.io/mesh/operator:0.1.0');
    assert.deepEqual(c.command, ['operator', 'server']);
    assert.deepEqual(c.env, [{ name: 'MESH_WATCH_NAMESPACE', value: 'mesh-system' }]);
  });

  it('given a revision, hub, tag and pull secrets should name the objects for the revision and use them', () => {
    const objects = operatorManifest({ ...BASE, revision: 'canary', hub: 'example.com/x', tag: '1.2', imagePullSecrets: ['s1', 's2'], watchedNamespaces: 'a,b' });
    assert.ok(objects.some((o) => o.kind === 'Deployment' && o.name === 'mesh-operator-canary'));
    const d = objects.find((o) => o.kind === 'Deployment')!.object as unknown as Deployment;
    assert.equal(d.spec.template.spec.containers[0]!.image, 'example.com/x/operator:1.2');
    assert.deepEqual(d.spec.template.spec.imagePullSecrets, [{ name: 's1' }, { name: 's2' }]);
    assert.equal(d.spec.template.spec.serviceAccountName, 'mesh-operator-canary');
    const labels = (objects[0]!.object['metadata'] as { labels: Record<string, string> }).labels;
    assert.equal(labels[REVISION_LABEL], 'canary');
  });
});
