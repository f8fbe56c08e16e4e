import assert from 'node:assert/strict';
import { renderCrds } from '../render-crds.js';
import { ISTIO_CRD_ONLY_RULES } from '../testing/istio-crd-only-rules.js';
import { schemaNodeAt, type SchemaObject } from '../testing/schema-node-at.js';
import { validateConfig } from './validate-config.js';

/** The errors of a config as `path: message` lines (empty when accepted). */
function errorsOf(kind: string, apiVersion: string, spec: unknown): string[] {
  const r = validateConfig({ apiVersion, kind, metadata: { name: 'crd-only', namespace: 'demo' }, spec });
  return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
}

describe("Istio's CRD schema rules that only our rendered CRDs carry (x-mesh-crd), in meshd's validation", () => {
  for (const c of ISTIO_CRD_ONLY_RULES) {
    describe(`${c.kind} ${c.field} (${c.keyword}): ${JSON.stringify(c.bad).slice(0, 100)}`, () => {
      it(`given the rendered CRD should carry ${c.keyword} at the field in every version`, () => {
        const crd = renderCrds().find((d) => d.spec.names.kind === c.kind)!;
        for (const v of crd.spec.versions) {
          const node = schemaNodeAt(v.schema.openAPIV3Schema as SchemaObject, c.field);
          assert.ok(node?.[c.keyword] !== undefined, `${v.name}: no ${c.keyword} at ${c.field}`);
        }
      });
      it(`given a config that violates it should refuse it at ${c.path} (or a field within)`, () => {
        const errors = errorsOf(c.kind, c.apiVersion, c.bad);
        const within = (e: string): boolean => e.startsWith(`${c.path}: `) || e.startsWith(`${c.path}.`) || e.startsWith(`${c.path}[`);
        assert.ok(errors.some(within), `want an error at ${c.path}, got:\n  ${errors.join('\n  ') || '(accepted)'}`);
      });
      it('given a config that satisfies it should accept it', () => {
        assert.deepEqual(errorsOf(c.kind, c.apiVersion, c.good), []);
      });
    });
  }
});
