import assert from 'node:assert/strict';
import { BenchUsageError, LARGE_MESH, parseBenchArgs } from './bench-options.js';
import { SCENARIOS } from './markers.js';

describe('bench:xds options', () => {
  const cases: { name: string; argv: string[]; want: Record<string, unknown> }[] = [
    { name: 'given no case should run the four edits at the default size', argv: [], want: { case: 'default', services: 100, proxies: 100, endpointsPerService: 2, scenarios: SCENARIOS } },
    {
      name: 'given --case large-mesh should load 10,000 services with 5 endpoints each and make endpoint changes only',
      argv: ['--case', 'large-mesh'],
      want: { case: 'large-mesh', services: 10_000, proxies: LARGE_MESH.proxies, endpointsPerService: 5, scenarios: ['endpoint'] },
    },
    {
      name: 'given --case large-mesh and explicit sizes should keep the explicit ones',
      argv: ['--services', '50', '--case', 'large-mesh', '--endpoints', '3', '--proxies', '2'],
      want: { case: 'large-mesh', services: 50, proxies: 2, endpointsPerService: 3, scenarios: ['endpoint'] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const o = parseBenchArgs(c.argv);
      assert.deepEqual(Object.fromEntries(Object.keys(c.want).map((k) => [k, (o as unknown as Record<string, unknown>)[k]])), c.want);
    });
  }

  it('given an unknown case should throw naming the flag and the choices', () => {
    assert.throws(() => parseBenchArgs(['--case', 'huge']), (e: unknown) => e instanceof BenchUsageError && /--case: expected default or large-mesh, got "huge"/.test(e.message));
  });
});
