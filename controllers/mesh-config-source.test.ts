import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelInput } from '../core/index.js';
import { MeshConfigError, meshConfigSource, parseMeshConfig, parseMeshNetworks, readMeshConfig } from './mesh-config-source.js';

const cases = [
  { name: 'given trustDomain and rootNamespace should use them over the defaults', text: 'trustDomain: example.org\nrootNamespace: istio-x\n', field: 'trustDomain', want: 'example.org' },
  { name: 'given enableAutoMtls false should turn auto mTLS off', text: 'enableAutoMtls: false\n', field: 'enableAutoMtls', want: false },
  { name: 'given an empty file should give the defaults', text: '', field: 'rootNamespace', want: 'mesh-system' },
  { name: 'given REGISTRY_ONLY should keep the outbound policy', text: 'outboundTrafficPolicy: { mode: REGISTRY_ONLY }\n', field: 'outboundTrafficPolicy', want: { mode: 'REGISTRY_ONLY' } },
];

describe('mesh config source', () => {
  for (const c of cases) {
    it(c.name, () => {
      const mc = parseMeshConfig('mesh', c.text) as unknown as Record<string, unknown>;
      assert.deepEqual(mc[c.field], c.want);
    });
  }

  it('given a wrong type should throw naming the file and field', () => {
    assert.throws(() => parseMeshConfig('/etc/mesh', 'enableAutoMtls: "yes"\n'), (e: Error) => e instanceof MeshConfigError && /\/etc\/mesh: enableAutoMtls: want true or false/.test(e.message));
  });

  it('given tlsDefaults should read its ECDH curves and cipher suites, and refuse a list of the wrong type naming the field', () => {
    const mc = parseMeshConfig('mesh', 'tlsDefaults: { ecdhCurves: [P-256], cipherSuites: [ECDHE-ECDSA-AES256-GCM-SHA384] }\n');
    assert.deepEqual(mc.tlsDefaults, { ecdhCurves: ['P-256'], cipherSuites: ['ECDHE-ECDSA-AES256-GCM-SHA384'] });
    assert.equal(mc.extra['tlsDefaults'], undefined, 'typed, not passed through');
    assert.throws(() => parseMeshConfig('/etc/mesh', 'tlsDefaults: { ecdhCurves: P-256 }\n'), (e: Error) => e instanceof MeshConfigError && /\/etc\/mesh: tlsDefaults: want \{ecdhCurves/.test(e.message));
  });

  it('given meshMTLS should read its minimum version and cipher suites, and refuse ecdhCurves as Istio does', () => {
    const mc = parseMeshConfig('mesh', 'meshMTLS: { minProtocolVersion: TLSV1_3, cipherSuites: [ECDHE-RSA-AES256-GCM-SHA384] }\n');
    assert.deepEqual(mc.meshMTLS, { minProtocolVersion: 'TLSV1_3', cipherSuites: ['ECDHE-RSA-AES256-GCM-SHA384'] });
    assert.throws(() => parseMeshConfig('/etc/mesh', 'meshMTLS: { ecdhCurves: [P-256] }\n'), (e: Error) => e instanceof MeshConfigError && e.message === '/etc/mesh: meshMTLS.ecdhCurves: mesh TLS does not support ECDH curves configuration');
    assert.throws(() => parseMeshConfig('/etc/mesh', 'meshMTLS: { minProtocolVersion: TLSV1_1 }\n'), (e: Error) => e instanceof MeshConfigError && /\/etc\/mesh: meshMTLS: want \{minProtocolVersion: TLS_AUTO \| TLSV1_2 \| TLSV1_3/.test(e.message));
  });

  it('given no file should give the default mesh', () => {
    assert.equal(readMeshConfig('/nonexistent/mesh').trustDomain, 'cluster.local');
  });

  it('given networks should parse each network', () => {
    const n = parseMeshNetworks('nets', 'networks:\n  n1:\n    endpoints: [{ fromRegistry: Orchestrator }]\n    gateways: [{ address: 1.2.3.4, port: 15443 }]\n');
    assert.equal(n.networks['n1']!.gateways[0]!.port, 15443);
  });

  it('given a watched file that changes should emit the new mesh config', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mesh-meshcfg-'));
    const path = join(dir, 'mesh');
    writeFileSync(path, 'trustDomain: one.org\n');
    const seen: string[] = [];
    const sub = meshConfigSource(path, { debounceMs: 20 }).subscribe((i: ModelInput) => {
      if (i.kind === 'meshConfig') seen.push(i.meshConfig.trustDomain);
    });
    try {
      assert.deepEqual(seen, ['one.org']);
      writeFileSync(path, 'trustDomain: two.org\n');
      const end = Date.now() + 10_000;
      while (seen.length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(seen, ['one.org', 'two.org']);
    } finally {
      sub.unsubscribe();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
