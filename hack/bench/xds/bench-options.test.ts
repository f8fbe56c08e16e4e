import assert from 'node:assert/strict';
import { BenchUsageError, DEFAULT_ISTIOD_BIN, LARGE_MESH, parseBenchArgs } from './bench-options.js';
import { SCENARIOS } from './markers.js';

describe('bench:xds options', () => {
  const cases: { name: string; argv: string[]; want: Record<string, unknown> }[] = [
    { name: 'given no case should run the four edits at the default size', argv: [], want: { case: 'default', services: 100, proxies: 100, endpointsPerService: 2, scenarios: SCENARIOS } },
    {
      name: 'given no source or reference should run meshd alone on config files (the mode before references)',
      argv: [],
      want: { source: 'files', reference: undefined, istiodBin: DEFAULT_ISTIOD_BIN },
    },
    { name: 'given no --xds should speak state-of-the-world ADS', argv: [], want: { xds: 'sotw' } },
    { name: 'given --xds delta should speak incremental ADS', argv: ['--xds', 'delta', '--proxy-type', 'sidecar'], want: { xds: 'delta', proxyType: 'sidecar' } },
    {
      name: 'given --reference istiod --source kube and sizes should run both servers on the API server at those sizes',
      argv: ['--reference', 'istiod', '--source', 'kube', '--services', '100', '--proxies', '50', '--proxy-type', 'sidecar'],
      want: { source: 'kube', reference: 'istiod', istiodBin: DEFAULT_ISTIOD_BIN, services: 100, proxies: 50, proxyType: 'sidecar' },
    },
    {
      name: 'given --istiod-bin should use that binary for the reference',
      argv: ['--istiod-bin', '/opt/istiod', '--reference', 'istiod'],
      want: { reference: 'istiod', istiodBin: '/opt/istiod', source: 'files' },
    },
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

  const bad: { name: string; argv: string[]; message: RegExp }[] = [
    { name: 'an unknown case', argv: ['--case', 'huge'], message: /--case: expected default or large-mesh, got "huge"/ },
    { name: 'an unknown source', argv: ['--source', 'etcd'], message: /--source: expected files or kube, got "etcd"/ },
    { name: 'an unknown ADS variant', argv: ['--xds', 'incremental'], message: /--xds: expected sotw or delta, got "incremental"/ },
    { name: 'an unknown reference', argv: ['--reference', 'envoy'], message: /--reference: expected istiod, got "envoy"/ },
    { name: '--istiod-bin without --reference', argv: ['--istiod-bin', '/opt/istiod'], message: /--istiod-bin: only with --reference istiod/ },
    { name: '--reference without a value', argv: ['--reference'], message: /--reference: missing value/ },
  ];
  for (const c of bad) {
    it(`given ${c.name} should throw naming the flag and what was wrong`, () => {
      assert.throws(() => parseBenchArgs(c.argv), (e: unknown) => e instanceof BenchUsageError && c.message.test(e.message));
    });
  }
});
