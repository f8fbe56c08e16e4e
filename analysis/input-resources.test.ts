import assert from 'node:assert/strict';
import { mergeResources, resourcesFromText } from './input-resources.js';

describe('resourcesFromText', () => {
  const cases: { name: string; text: string; resources: string[]; problems: RegExp[] }[] = [
    {
      name: 'given namespaced and cluster-scoped objects without namespace should give the default namespace only to the namespaced',
      text: 'apiVersion: v1\nkind: Namespace\nmetadata: { name: a }\n---\napiVersion: v1\nkind: Service\nmetadata: { name: s }\n',
      resources: ['Namespace /a @1', 'Service dflt/s @5'],
      problems: [],
    },
    {
      // NOTE: names y1 and n1, not y and n: unquoted, each is a YAML 1.1 boolean, as kubectl and istiod read it.
      name: 'given an unknown mesh.io kind, an Istio group and a document without a name should report each and keep the rest',
      text: 'apiVersion: networking.mesh.io/v1\nkind: Nonsense\nmetadata: { name: x }\n---\napiVersion: security.istio.io/v1\nkind: AuthorizationPolicy\nmetadata: { name: y1 }\n---\napiVersion: v1\nkind: Pod\nmetadata: {}\n---\napiVersion: v1\nkind: Pod\nmetadata: { name: p, namespace: n1 }\n',
      resources: ['Pod n1/p @13'],
      problems: [/^1: Nonsense x: unknown kind "Nonsense" of API group networking\.mesh\.io$/, /^2: AuthorizationPolicy y1: .*security\.mesh\.io/, /^3: Pod: metadata\.name is missing/],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = resourcesFromText(c.text, 'f.yaml', 'dflt');
      assert.deepEqual(
        got.resources.map((r) => `${r.kind} ${r.namespace}/${r.name} @${r.origin.line}`),
        c.resources,
      );
      assert.equal(got.problems.length, c.problems.length, JSON.stringify(got.problems));
      got.problems.forEach((p, i) => assert.match(`${p.document}: ${p.message}`, c.problems[i]!));
    });
  }

  it('given the same object from the cluster and a file should keep the file one', () => {
    const file = resourcesFromText('apiVersion: v1\nkind: Service\nmetadata: { name: s, namespace: n, labels: { from: file } }\n', 'f.yaml', 'default').resources;
    const cluster = resourcesFromText('apiVersion: v1\nkind: Service\nmetadata: { name: s, namespace: n, labels: { from: cluster } }\n---\napiVersion: v1\nkind: Service\nmetadata: { name: t, namespace: n }\n', 'c', 'default').resources;
    const merged = mergeResources(cluster, file);
    assert.deepEqual(merged.map((r) => `${r.name}:${r.labels['from'] ?? ''}`).sort(), ['s:file', 't:']);
  });
});
