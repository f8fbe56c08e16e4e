import assert from 'node:assert/strict';
import { validateConfig } from '../validate-config.js';

const dr = (spec: Record<string, unknown>, namespace = 'demo'): unknown => ({
  apiVersion: 'networking.mesh.io/v1',
  kind: 'DestinationRule',
  metadata: { name: 'echo', namespace },
  spec: { host: 'echo', ...spec },
});

/** Errors and warnings as `path: message` lines. */
function issuesOf(obj: unknown): { errors: string[]; warnings: string[] } {
  const r = validateConfig(obj);
  return { errors: r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`), warnings: r.warnings.map((w) => `${w.path}: ${w.message}`) };
}

describe('DestinationRule workloadSelector validation (as Istio)', () => {
  const sel = { workloadSelector: { matchLabels: { app: 'a' } } };
  const cases: { name: string; spec: Record<string, unknown>; errors: string[]; warnings?: string[] }[] = [
    { name: 'given a selector exported to "." should accept it', spec: { ...sel, exportTo: ['.'] }, errors: [] },
    { name: 'given a selector exported to its own namespace by name should accept it', spec: { ...sel, exportTo: ['demo'] }, errors: [] },
    {
      name: 'given a selector exported to every namespace should refuse it',
      spec: { ...sel, exportTo: ['*'] },
      errors: ['spec.exportTo: destination rule with workload selector cannot have exportTo beyond current namespace'],
    },
    {
      name: 'given a selector exported to another namespace should refuse it',
      spec: { ...sel, exportTo: ['other'] },
      errors: ['spec.exportTo: destination rule with workload selector cannot have exportTo beyond current namespace'],
    },
    {
      name: 'given a selector exported to its namespace and another should refuse the extra entry',
      spec: { ...sel, exportTo: ['.', 'other'] },
      errors: ['spec.exportTo: destination rule with workload selector cannot have multiple entries in exportTo'],
    },
    {
      name: 'given "." and the namespace name together should refuse the duplicate',
      spec: { exportTo: ['.', 'demo'] },
      errors: ['spec.exportTo: duplicate entries in exportTo: . and current namespace demo'],
    },
    {
      name: 'given a selector without labels should warn and accept it',
      spec: { workloadSelector: {} },
      errors: [],
      warnings: ['spec.workloadSelector: workload selector specified without labels'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = issuesOf(dr(c.spec));
      assert.deepEqual(got.errors, c.errors);
      assert.deepEqual(got.warnings, c.warnings ?? []);
    });
  }
});
