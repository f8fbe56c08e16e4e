import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrchKubeConfig, OrchConfigError, validateOrchClientOptions } from './orch-client-options.js';
import { objectKey, objectPath, resourcePath, ORCH_RESOURCES } from './orch-resource.js';

function kubeconfig(name: string, server: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server } }],
    users: [{ name, user: { token: 't' } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
  });
}

describe('orchestrator client options', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'orch-options-'));
    writeFileSync(join(dir, 'a'), kubeconfig('a', 'https://a.example:6443'));
    writeFileSync(join(dir, 'b'), kubeconfig('b', 'https://b.example:6443'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('given --orchconfig and KUBECONFIG, should use --orchconfig', () => {
    const kc = loadOrchKubeConfig({ orchconfig: join(dir, 'a'), kubeconfigEnv: join(dir, 'b') });
    assert.equal(kc.getCurrentCluster()?.server, 'https://a.example:6443');
  });

  it('given KUBECONFIG with two files, should merge them and keep the first current context', () => {
    const kc = loadOrchKubeConfig({ orchconfig: '', kubeconfigEnv: `${join(dir, 'a')}:${join(dir, 'b')}`, context: 'b' });
    assert.equal(kc.getCurrentCluster()?.server, 'https://b.example:6443');
    assert.equal(kc.contexts.length, 2);
  });

  it('given only in-cluster settings, should point at the service host with the token file', () => {
    const kc = loadOrchKubeConfig({ orchconfig: '', inCluster: { serviceHost: 'fd00::1', servicePort: '443' } });
    assert.equal(kc.getCurrentCluster()?.server, 'https://[fd00::1]:443');
  });

  const bad = [
    { name: 'given nothing, should say how to configure', source: { orchconfig: '' }, message: /pass --orchconfig, set KUBECONFIG/ },
    { name: 'given a missing --orchconfig file, should name it', source: { orchconfig: '/nonexistent/kc' }, message: /--orchconfig: cannot load kubeconfig \/nonexistent\/kc/ },
    { name: 'given a KUBECONFIG file that does not exist, should name the variable and file', source: { orchconfig: '', kubeconfigEnv: '/nonexistent/x' }, message: /KUBECONFIG: cannot load kubeconfig \/nonexistent\/x/ },
    { name: 'given a bad in-cluster port, should name the variable', source: { orchconfig: '', inCluster: { serviceHost: 'h', servicePort: 'x' } }, message: /KUBERNETES_SERVICE_PORT/ },
  ];
  for (const c of bad) {
    it(c.name, () => {
      assert.throws(() => loadOrchKubeConfig(c.source), (err: unknown) => err instanceof OrchConfigError && c.message.test(err.message));
    });
  }

  it('given an unknown context, should name it', () => {
    assert.throws(() => loadOrchKubeConfig({ orchconfig: join(dir, 'a'), context: 'zz' }), /kubeconfig context "zz" does not exist/);
  });

  const badOptions = [
    { name: 'given --orchApiQPS 0, should name the flag', options: { qps: 0, burst: 1, contentType: 'json' }, message: /^--orchApiQPS 0/ },
    { name: 'given --orchApiBurst 0, should name the flag', options: { qps: 1, burst: 0, contentType: 'json' }, message: /^--orchApiBurst 0/ },
    { name: 'given an unknown content type, should list the accepted ones', options: { qps: 1, burst: 1, contentType: 'xml' }, message: /use protobuf or json/ },
    { name: 'given protobuf, should say it is not implemented and how to avoid it', options: { qps: 1, burst: 1, contentType: 'protobuf' }, message: /not implemented yet: .*set MESH_ORCH_CLIENT_CONTENT_TYPE=json/ },
  ];
  for (const c of badOptions) {
    it(c.name, () => {
      assert.throws(() => validateOrchClientOptions(c.options), (err: unknown) => err instanceof OrchConfigError && c.message.test(err.message));
    });
  }

  it('given json and positive limits, should accept them', () => {
    assert.doesNotThrow(() => validateOrchClientOptions({ qps: 80, burst: 160, contentType: 'json' }));
  });
});

describe('orchestrator resource paths', () => {
  const cases = [
    { name: 'given pods in a namespace, should use the core namespaced path', got: resourcePath(ORCH_RESOURCES.pods, 'ns1'), want: '/api/v1/namespaces/ns1/pods' },
    { name: 'given pods in all namespaces, should use the core path', got: resourcePath(ORCH_RESOURCES.pods), want: '/api/v1/pods' },
    { name: 'given a cluster-scoped resource and a namespace, should ignore the namespace', got: resourcePath(ORCH_RESOURCES.nodes, 'ns1'), want: '/api/v1/nodes' },
    { name: 'given a grouped resource, should use /apis', got: resourcePath(ORCH_RESOURCES.endpointSlices, 'ns1'), want: '/apis/discovery.k8s.io/v1/namespaces/ns1/endpointslices' },
    { name: 'given one object, should append its name', got: objectPath(ORCH_RESOURCES.configMaps, 'a', 'b'), want: '/api/v1/namespaces/b/configmaps/a' },
    { name: 'given a namespaced object, should key it namespace/name', got: objectKey({ metadata: { name: 'a', namespace: 'b' } }), want: 'b/a' },
    { name: 'given a cluster-scoped object, should key it by name', got: objectKey({ metadata: { name: 'a' } }), want: 'a' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(c.got, c.want));
});
