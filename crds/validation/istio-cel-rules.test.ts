import assert from 'node:assert/strict';
import { ISTIO_CEL_RULES, type CelRuleCase } from '../testing/istio-cel-rules.js';
import { validateConfig } from './validate-config.js';

/** The errors of a config as `path: message` lines (empty when accepted). */
function errorsOf(kind: string, apiVersion: string, spec: unknown): string[] {
  const r = validateConfig({ apiVersion, kind, metadata: { name: 'cel', namespace: 'demo' }, spec });
  return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
}

describe("Istio's CEL rules (x-kubernetes-validations of istio/api's CRDs) in meshd's validation", () => {
  it('given the rule table should list every rule once per kind and field', () => {
    const keys = ISTIO_CEL_RULES.map((c) => `${c.kind} ${c.field} ${c.message}`);
    assert.equal(new Set(keys).size, keys.length, 'no rule is listed twice');
    assert.ok(ISTIO_CEL_RULES.length >= 150, `${ISTIO_CEL_RULES.length} rules`);
  });

  for (const c of ISTIO_CEL_RULES as readonly CelRuleCase[]) {
    describe(`${c.kind} ${c.field}: ${c.message}`, () => {
      it(`given a config that violates it should refuse it at ${c.path} (or a field within) with Istio's reason`, () => {
        const errors = errorsOf(c.kind, c.apiVersion, c.bad);
        // NOTE: a field within the rule's (spec.ports[1].number for a rule on spec.ports) names it at least as precisely.
        const within = (e: string): boolean => e.startsWith(`${c.path}: `) || e.startsWith(`${c.path}.`) || e.startsWith(`${c.path}[`);
        assert.ok(
          errors.some((e) => within(e) && e.includes(c.message)),
          `want "${c.path}: ...${c.message}...", got:\n  ${errors.join('\n  ') || '(accepted)'}`,
        );
      });
      it('given a config at the edge that satisfies it should accept it', () => {
        assert.deepEqual(errorsOf(c.kind, c.apiVersion, c.good), []);
      });
    });
  }
});
