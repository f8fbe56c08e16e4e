import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { METRICS } from './metric-catalogue.js';

interface SpecMetric {
  name: string;
  type: 'Sum' | 'LastValue' | 'Distribution';
  group: 'shared' | 'operator' | 'pilot-discovery' | 'pilot-agent';
  meaning: string;
}

/** The spec table, found from the repo root (the folder holding package.json) as ../shared/spec. */
function readSpec(): SpecMetric[] {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, '..', 'shared', 'spec', 'metrics.json'), 'utf8')) as { metrics: SpecMetric[] }).metrics;
}

const KIND = { Sum: 'counter', LastValue: 'gauge', Distribution: 'histogram' } as const;

describe('METRICS', () => {
  const spec = readSpec();

  it('given the spec list should catalogue exactly its names, once each', () => {
    const names = METRICS.map((m) => m.name);
    assert.equal(new Set(names).size, names.length);
    assert.deepEqual([...names].sort(), spec.map((m) => m.name).sort());
  });

  for (const s of spec) {
    it(`given ${s.name} (${s.group} ${s.type}) should have its kind and exporting programs`, () => {
      const m = METRICS.find((d) => d.name === s.name);
      assert.ok(m, `${s.name} missing`);
      assert.equal(m.type, KIND[s.type]);
      const want = s.group === 'shared' ? ['operator', 'pilot-discovery', 'pilot-agent'] : [s.group];
      if (/^(pilot_orch_|sidecar_injection_|webhook_patch_)/.test(s.name)) want.push('pilot-discovery');
      assert.deepEqual([...m.programs].sort(), want.sort());
      assert.notEqual(m.help, '');
    });
  }

  it('given histograms should have ascending buckets', () => {
    for (const m of METRICS.filter((d) => d.type === 'histogram')) {
      const b = 'buckets' in m ? [...m.buckets] : [];
      assert.ok(b.length > 0 && b.every((v, i) => i === 0 || v > b[i - 1]!), `${m.name} buckets`);
    }
  });

  it('given label names should be Prometheus identifiers', () => {
    for (const m of METRICS) for (const l of m.labelNames) assert.match(l, /^[a-z_][a-z0-9_]*$/, `${m.name}{${l}}`);
  });
});
