import assert from 'node:assert/strict';
import { manifestObjects, objectRef } from './manifest-object.js';
import { COMPONENT_LABEL, OWNING_RESOURCE_LABEL, ownerSelector, REVISION_LABEL } from './install-labels.js';

const OWNER = { name: 'installed-state', namespace: 'mesh-system', revision: 'canary' };

describe('manifestObjects', () => {
  it('given two components, should tag each object with its component and the owner labels, keeping the chart labels', () => {
    const objs = manifestObjects(
      [
        { component: 'Base', text: '---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: a\n  namespace: mesh-system\n  labels:\n    app: x\n' },
        { component: 'Pilot', text: '---\n# Source: x\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: b\n---\n' },
      ],
      OWNER,
    );
    assert.deepEqual(objs.map((o) => [o.component, objectRef(o)]), [['Base', 'ServiceAccount mesh-system/a'], ['Pilot', 'ClusterRole b']]);
    const labels = (objs[0]?.object['metadata'] as { labels: Record<string, string> }).labels;
    assert.equal(labels['app'], 'x');
    assert.equal(labels[OWNING_RESOURCE_LABEL], 'installed-state');
    assert.equal(labels[COMPONENT_LABEL], 'Base');
    assert.equal(labels[REVISION_LABEL], 'canary');
  });

  it('given a document without a name, should fail naming the component and the document', () => {
    assert.throws(() => manifestObjects([{ component: 'Pilot', text: 'apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {}\n' }], OWNER), /component Pilot, document 1: an object needs/);
  });

  it('given bad YAML, should fail naming the component and the document', () => {
    assert.throws(() => manifestObjects([{ component: 'Base', text: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\nkind: [\n' }], OWNER), /component Base, document 2/);
  });
});

describe('ownerSelector', () => {
  it('given the default revision, should select revision label default', () => {
    assert.equal(ownerSelector({ name: 'o', namespace: 'mesh-system', revision: '' }), `${OWNING_RESOURCE_LABEL}=o,install.operator.mesh.io/owning-resource-namespace=mesh-system,${REVISION_LABEL}=default`);
  });
});
