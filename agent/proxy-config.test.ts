import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultProxyConfig, parsePodAnnotations, resolveProxyConfig } from './proxy-config.js';

describe('resolveProxyConfig', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'proxy-config-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('given no mesh config file, no PROXY_CONFIG and no annotation should give the defaults', () => {
    const r = resolveProxyConfig({ meshConfigPath: join(dir, 'absent'), annotationsPath: join(dir, 'absent-too') });
    assert.deepEqual(r, { proxy: defaultProxyConfig(), trustDomain: 'cluster.local' });
  });

  it('given all three layers should apply mesh config, then PROXY_CONFIG, then the annotation', () => {
    const mesh = join(dir, 'mesh');
    writeFileSync(mesh, 'trustDomain: example.org\ndefaultConfig:\n  discoveryAddress: meshd.mesh-system.svc:15012\n  drainDuration: 30s\n  concurrency: 4\n  proxyMetadata: { A: from-mesh, B: from-mesh }\n');
    const annotations = join(dir, 'annotations');
    writeFileSync(annotations, `app="x"\nproxy.mesh.io/config="terminationDrainDuration: 7s\\nconcurrency: 1\\n"\n`);
    const r = resolveProxyConfig({ meshConfigPath: mesh, proxyConfigEnv: '{"concurrency": 3, "proxyMetadata": {"B": "from-env"}, "statusPort": 25020}', annotationsPath: annotations });
    assert.equal(r.trustDomain, 'example.org');
    assert.equal(r.proxy.drainDurationMs, 30_000);
    assert.equal(r.proxy.terminationDrainDurationMs, 7_000);
    assert.equal(r.proxy.concurrency, 1);
    assert.equal(r.proxy.statusPort, 25020);
    assert.deepEqual(r.proxy.proxyMetadata, { A: 'from-mesh', B: 'from-env' });
  });

  const bad: { name: string; mesh?: string; env?: string; annotation?: string; error: RegExp }[] = [
    { name: 'a bad duration in the mesh config', mesh: 'defaultConfig:\n  drainDuration: soon\n', error: /^mesh config .*\/mesh: defaultConfig: drainDuration: "soon" is not a duration/ },
    { name: 'an out-of-range port in PROXY_CONFIG', env: 'proxyAdminPort: 70000', error: /^PROXY_CONFIG: proxyAdminPort: 70000 is not a whole number from 1 to 65535$/ },
    { name: 'an unknown field in PROXY_CONFIG', env: 'binaryPth: /x', error: /^PROXY_CONFIG: unknown ProxyConfig field "binaryPth"$/ },
    { name: 'PROXY_CONFIG that is not YAML', env: '{ nope', error: /^PROXY_CONFIG: not YAML or JSON/ },
    { name: 'a bad auth policy in the annotation', annotation: 'controlPlaneAuthPolicy: MAYBE', error: /^annotation proxy\.mesh\.io\/config \(.*\): controlPlaneAuthPolicy: "MAYBE" is not NONE or MUTUAL_TLS$/ },
  ];
  for (const c of bad) {
    it(`given ${c.name} should refuse it naming where and what`, () => {
      const mesh = join(dir, 'mesh');
      if (c.mesh) writeFileSync(mesh, c.mesh);
      const annotations = join(dir, 'annotations');
      if (c.annotation) writeFileSync(annotations, `proxy.mesh.io/config=${JSON.stringify(c.annotation)}\n`);
      assert.throws(() => resolveProxyConfig({ meshConfigPath: mesh, ...(c.env ? { proxyConfigEnv: c.env } : {}), annotationsPath: annotations }), (e: Error) => {
        assert.equal(e.name, 'ProxyConfigError');
        assert.match(e.message, c.error);
        return true;
      });
    });
  }

  it('given downward-API annotation lines should unquote Go-quoted values', () => {
    assert.deepEqual(parsePodAnnotations('a="x\\ny"\nb="plain"\n\n'), { a: 'x\ny', b: 'plain' });
  });
});
