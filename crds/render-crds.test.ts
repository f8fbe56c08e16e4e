import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { KINDS, KIND_NAMES } from './kinds.js';
import { renderCrds, renderCrdsYaml } from './render-crds.js';
import { CRD_MANIFEST_PATH } from './source-paths.js';
import { ISTIO_CEL_RULES } from './testing/istio-cel-rules.js';
import { schemaNodeAt, type SchemaObject } from './testing/schema-node-at.js';

type CelRules = { rule: string; message: string }[];

/** Every `x-kubernetes-validations` rule of a schema as `field: message`, with the field in {@link schemaNodeAt}'s notation. */
function celRulesOf(node: SchemaObject, field: string): string[] {
  const own = ((node['x-kubernetes-validations'] as CelRules | undefined) ?? []).map((r) => `${field}: ${r.message}`);
  const children = [
    ...Object.entries((node['properties'] as Record<string, SchemaObject> | undefined) ?? {}).map(([k, v]) => celRulesOf(v, `${field}.${k}`)),
    node['items'] ? celRulesOf(node['items'] as SchemaObject, `${field}[]`) : [],
    typeof node['additionalProperties'] === 'object' ? celRulesOf(node['additionalProperties'] as SchemaObject, `${field}{}`) : [],
  ];
  return [...own, ...children.flat()];
}

/** Returns the paths of schema nodes that break Kubernetes' structural-schema rules we rely on. */
function structuralProblems(node: Record<string, unknown>, path: string): string[] {
  const problems: string[] = [];
  const typed = typeof node['type'] === 'string' || node['x-kubernetes-int-or-string'] === true;
  if (!typed) problems.push(`${path}: no type`);
  if (node['properties'] !== undefined && node['additionalProperties'] !== undefined) {
    problems.push(`${path}: properties and additionalProperties together`);
  }
  for (const key of Object.keys(node)) if (key.startsWith('x-mesh-')) problems.push(`${path}: leaked ${key}`);
  for (const [k, v] of Object.entries((node['properties'] as Record<string, Record<string, unknown>>) ?? {})) {
    problems.push(...structuralProblems(v, `${path}.${k}`));
  }
  if (node['items']) problems.push(...structuralProblems(node['items'] as Record<string, unknown>, `${path}[]`));
  if (typeof node['additionalProperties'] === 'object') {
    problems.push(...structuralProblems(node['additionalProperties'] as Record<string, unknown>, `${path}{}`));
  }
  return problems;
}

describe('renderCrds', () => {
  it('given the committed manifest should equal the rendered output (run npm run gen:crds)', () => {
    assert.equal(readFileSync(CRD_MANIFEST_PATH, 'utf8'), renderCrdsYaml());
  });

  it('given the committed manifest should parse into one CRD per kind', () => {
    const docs = parseAllDocuments(readFileSync(CRD_MANIFEST_PATH, 'utf8')).map((d) => d.toJS() as { metadata: { name: string } });
    assert.deepEqual(
      docs.map((d) => d.metadata.name),
      KIND_NAMES.map((k) => `${KINDS[k].plural}.${KINDS[k].group}`),
    );
  });

  for (const crd of renderCrds()) {
    it(`given ${crd.metadata.name} should have one storage version, status subresource and a structural schema`, () => {
      assert.equal(crd.spec.versions.filter((v) => v.storage).length, 1);
      for (const version of crd.spec.versions) {
        assert.ok(version.served);
        assert.deepEqual(version.subresources, { status: {} });
        assert.deepEqual(structuralProblems(version.schema.openAPIV3Schema as Record<string, unknown>, version.name), []);
      }
    });
  }

  it("given Istio's CEL rule table should find each rule, with its message, at its field in every version of its kind's CRD", () => {
    const missing: string[] = [];
    for (const c of ISTIO_CEL_RULES) {
      const crd = renderCrds().find((d) => d.spec.names.kind === c.kind)!;
      for (const version of crd.spec.versions) {
        const node = schemaNodeAt(version.schema.openAPIV3Schema as SchemaObject, c.field);
        const rules = (node?.['x-kubernetes-validations'] as CelRules | undefined) ?? [];
        if (!rules.some((r) => r.message === c.message)) missing.push(`${c.kind} ${version.name} ${c.field}: ${c.message}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it("given the rendered CRDs should carry no CEL rule that Istio's rule table does not list", () => {
    const listed = new Set(ISTIO_CEL_RULES.map((c) => `${c.kind} ${c.field}: ${c.message}`));
    const extra = renderCrds().flatMap((crd) =>
      crd.spec.versions.flatMap((v) => celRulesOf(v.schema.openAPIV3Schema as SchemaObject, '').map((r) => `${crd.spec.names.kind} ${r}`)),
    );
    assert.deepEqual(extra.filter((r) => !listed.has(r)), []);
    assert.ok(extra.length >= ISTIO_CEL_RULES.length, `${extra.length} rules rendered`);
  });

  it('given VirtualService should serve v1, v1alpha3, v1beta1 with Gateways/Hosts/Age columns', () => {
    const vs = renderCrds().find((c) => c.spec.names.kind === 'VirtualService')!;
    assert.deepEqual(vs.spec.versions.map((v) => v.name), ['v1', 'v1alpha3', 'v1beta1']);
    assert.deepEqual(vs.spec.versions[0]!.additionalPrinterColumns!.map((c) => c.name), ['Gateways', 'Hosts', 'Age']);
  });
});
