import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOOTSTRAP_TYPE, BUILT_IN_BOOTSTRAP_TEMPLATE, defaultProxyConfig, writeBootstrap, type BootstrapInputs } from '../../agent/index.js';
import { decode } from '../../xds/index.js';
import { Tmpfs, tmpfsBlocker } from '../testing/tmpfs.js';
import { renderGoTemplate } from './run-proxy.js';

/** Walks a decoded message: `dig(b, 'node', 'id')`. */
function dig(o: unknown, ...keys: (string | number)[]): unknown {
  let v = o;
  for (const k of keys) v = (v as Record<string | number, unknown> | undefined)?.[k];
  return v;
}

function clusterNamed(b: unknown, name: string): unknown {
  return (dig(b, 'staticResources', 'clusters') as unknown[]).find((c) => dig(c, 'name') === name);
}

const endpointAddress = (c: unknown): unknown => dig(c, 'loadAssignment', 'endpoints', 0, 'lbEndpoints', 0, 'endpoint', 'address');

function inputs(dir: string, over: Partial<BootstrapInputs> = {}): BootstrapInputs {
  return {
    proxyType: 'sidecar',
    proxy: { ...defaultProxyConfig(), configPath: join(dir, 'proxy'), proxyAdminPort: 25000, statusPort: 25020, extraStatTags: ['app_version'] },
    podName: 'reviews-v1-abc',
    podNamespace: 'bookinfo',
    instanceIps: ['10.1.2.3'],
    domain: 'bookinfo.svc.cluster.local',
    serviceAccount: 'reviews',
    meshVersion: '1.2.3',
    metadata: { DNS_CAPTURE: 'true', INSTANCE_IPS: '10.1.2.3' },
    xdsSocketPath: join(dir, 'proxy', 'XDS'),
    sdsSocketPath: './var/run/secrets/workload-spiffe-uds/socket',
    ...over,
  };
}

describe('bootstrap', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'bootstrap-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('given the built-in template should write a Bootstrap that encodes, validates and carries node, admin, xds-grpc and SDS', () => {
    const w = writeBootstrap(inputs(dir), renderGoTemplate);
    assert.equal(w.path, join(dir, 'proxy', 'dataplane-rev.json'));
    assert.equal(readFileSync(w.path, 'utf8'), w.text);
    const b = decode(BOOTSTRAP_TYPE, w.bytes);
    assert.equal(dig(b, 'node', 'id'), 'sidecar~10.1.2.3~reviews-v1-abc.bookinfo~bookinfo.svc.cluster.local');
    assert.equal(dig(b, 'node', 'cluster'), 'reviews-v1-abc.bookinfo');
    assert.deepEqual(dig(b, 'node', 'metadata', 'fields', 'DNS_CAPTURE'), { stringValue: 'true' });
    assert.deepEqual(dig(b, 'node', 'metadata', 'fields', 'SERVICE_ACCOUNT'), { stringValue: 'reviews' });
    assert.deepEqual(dig(b, 'admin', 'address', 'socketAddress'), { address: '127.0.0.1', portValue: 25000 });
    assert.deepEqual((dig(b, 'staticResources', 'clusters') as unknown[]).map((c) => dig(c, 'name')), ['prometheus_stats', 'agent', 'sds-grpc', 'xds-grpc']);
    assert.equal(dig(endpointAddress(clusterNamed(b, 'xds-grpc')), 'pipe', 'path'), join(dir, 'proxy', 'XDS'));
    assert.equal(dig(endpointAddress(clusterNamed(b, 'sds-grpc')), 'pipe', 'path'), './var/run/secrets/workload-spiffe-uds/socket');
    assert.equal(dig(endpointAddress(clusterNamed(b, 'agent')), 'socketAddress', 'portValue'), 25020);
    assert.deepEqual(dig(b, 'dynamicResources', 'adsConfig', 'grpcServices'), [{ envoyGrpc: { clusterName: 'xds-grpc' } }]);
    assert.ok((dig(b, 'statsConfig', 'statsTags') as unknown[]).some((t) => dig(t, 'tagName') === 'app_version'));
    assert.equal(dig(b, 'tracing'), undefined);
  });

  it('given a config path it cannot create should fail naming the path', () => {
    writeFileSync(join(dir, 'file'), '');
    const configPath = join(dir, 'file', 'proxy');
    assert.throws(
      () => writeBootstrap(inputs(dir, { proxy: { ...inputs(dir).proxy, configPath } }), renderGoTemplate),
      (e: Error) => e.name === 'BootstrapError' && e.message.startsWith(`bootstrap: cannot write ${join(configPath, 'dataplane-rev.json')}: ENOTDIR`),
    );
  });

  // Skipped, the reason printed, where no tmpfs can be mounted (not root): the ENOSPC must be the kernel's.
  it('given a full disk should fail naming the path and ENOSPC, and leave the previous bootstrap whole', function () {
    const blocker = tmpfsBlocker();
    if (blocker) {
      console.log(`      skipped: ${blocker}`);
      this.skip(); // no tmpfs here (reason printed above): the kernel's ENOSPC needs a file system of the test's own
    }
    const fs = new Tmpfs(256 * 1024, 'bootstrap-full-');
    try {
      const at = (podName: string): BootstrapInputs => inputs(fs.dir, { podName });
      const first = writeBootstrap(at('reviews-v1-abc'), renderGoTemplate);
      assert.ok(fs.fill() > 0);
      assert.throws(
        () => writeBootstrap(at('reviews-v1-def'), renderGoTemplate),
        (e: Error) => e.name === 'BootstrapError' && e.message.startsWith(`bootstrap: cannot write ${first.path}: ENOSPC`),
      );
      assert.equal(readFileSync(first.path, 'utf8'), first.text, 'the previous bootstrap is whole');
      assert.deepEqual(readdirSync(join(fs.dir, 'proxy')), ['dataplane-rev.json'], 'no temporary file is left');
    } finally {
      fs.dispose();
    }
  });

  it('given Zipkin tracing in the ProxyConfig should add the zipkin cluster and tracer', () => {
    const i = inputs(dir);
    const w = writeBootstrap({ ...i, proxy: { ...i.proxy, tracing: { zipkin: { address: 'zipkin.mesh-system:9411' } } } }, renderGoTemplate);
    const b = decode(BOOTSTRAP_TYPE, w.bytes);
    assert.equal(dig(b, 'tracing', 'http', 'typedConfig', '@type'), 'type.googleapis.com/envoy.config.trace.v3.ZipkinConfig');
    assert.deepEqual(dig(endpointAddress(clusterNamed(b, 'zipkin')), 'socketAddress'), { address: 'zipkin.mesh-system', portValue: 9411 });
  });

  it('given a --templateFile should render it with the same data', () => {
    const file = join(dir, 'custom.json');
    writeFileSync(file, '{"node": {"id": "{{ .nodeID }}", "cluster": "custom"}, "admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": {{ .config.ProxyAdminPort }}}}}}');
    const w = writeBootstrap(inputs(dir), renderGoTemplate, file);
    assert.deepEqual(decode(BOOTSTRAP_TYPE, w.bytes), {
      node: { id: 'sidecar~10.1.2.3~reviews-v1-abc.bookinfo~bookinfo.svc.cluster.local', cluster: 'custom' },
      admin: { address: { socketAddress: { address: '127.0.0.1', portValue: 25000 } } },
    });
  });

  const adminOf = (port: string): string => `"admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": ${port}}}}`;
  const bad: { name: string; template: string; error: RegExp }[] = [
    { name: 'a template syntax error', template: '{"node": {"id": "{{ .nodeID "}}', error: /^bootstrap from template file .*\/t\.json: .*/ },
    { name: 'output that is not JSON', template: '{"node": ', error: /^bootstrap from template file .*\/t\.json: the rendered template is not JSON: / },
    { name: 'a misspelled field', template: `{"nodes": {}, ${adminOf('1')}}`, error: /not a envoy\.config\.bootstrap\.v3\.Bootstrap: nodes: unknown field of envoy\.config\.bootstrap\.v3\.Bootstrap$/ },
    { name: 'a port over 65535 (a protoc-gen-validate rule)', template: `{${adminOf('70000')}}`, error: /Bootstrap is invalid: admin\.address\.socketAddress\.portValue: .*65535/ },
    { name: 'a bad duration', template: '{"static_resources": {"clusters": [{"name": "c", "connect_timeout": "soon"}]}}', error: /static_resources\.clusters\[0\]\.connect_timeout: "soon" is not a duration/ },
    {
      name: 'an empty cluster name inside an Any (the HTTP connection manager)',
      template: '{"static_resources": {"listeners": [{"name": "l", "address": {"socket_address": {"address": "0.0.0.0", "port_value": 1}}, "filter_chains": [{"filters": [{"name": "hcm", "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager", "stat_prefix": "s", "route_config": {"virtual_hosts": [{"name": "v", "domains": ["*"], "routes": [{"match": {"prefix": "/"}, "route": {"cluster": ""}}]}]}}}]}]}]}}',
      error: /Bootstrap is invalid: .*routes\[0\]\.route\.cluster: value length must be at least 1/,
    },
  ];
  for (const c of bad) {
    it(`given a template file with ${c.name} should refuse it naming the file and the fault`, () => {
      const file = join(dir, 't.json');
      writeFileSync(file, c.template);
      assert.throws(() => writeBootstrap(inputs(dir), renderGoTemplate, file), (e: Error) => {
        assert.equal(e.name, 'BootstrapError');
        assert.match(e.message, c.error);
        return true;
      });
    });
  }

  it('given the built-in template should be the one written when no file is given', () => {
    assert.match(BUILT_IN_BOOTSTRAP_TEMPLATE, /"xds-grpc"/);
    assert.throws(() => writeBootstrap(inputs(dir), renderGoTemplate, join(dir, 'missing.json')), /^BootstrapError: bootstrap template file .*missing\.json: cannot read it/);
  });
});
