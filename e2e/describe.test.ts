import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { OrchClient } from '../controllers/index.js';
import { renderCrds } from '../crds/index.js';
import { bufferIo, runCli } from '../cli/framework/index.js';
import { meshctlCommand } from '../cli/meshctl/meshctl-command.js';
import { applyCrds, createTestNamespace, deleteNamespaceFully, e2eCluster } from './harness/index.js';

// NOTE: bookinfo's reviews (examples/bookinfo-sidecar/routing.yaml) as orchestrator objects: Services, pods
// (made Running through their status, as no kubelet runs here), EndpointSlices, and the mesh.io objects.
// Versions are labelled v1.0, ..., not v1: the analyze test expects no pod of the cluster to carry version=v1.
describe('e2e: meshctl x describe pod|service against a real API server', function () {
  this.timeout(300_000);
  let kc: KubeConfig;
  let client: OrchClient;
  let ns: string;
  let home: string;

  const post = (path: string, body: Record<string, unknown>): Promise<unknown> => client.request('POST', path, { body });
  const net = (plural: string): string => `/apis/networking.mesh.io/v1/namespaces/${ns}/${plural}`;
  const sec = (plural: string): string => `/apis/security.mesh.io/v1/namespaces/${ns}/${plural}`;

  async function pod(name: string, labels: Record<string, string>, ip: string, opts: { meshed?: boolean; app?: string; hostIP?: string } = {}): Promise<void> {
    const meshed = opts.meshed ?? true;
    const containers = [
      { name: opts.app ?? labels['app'] ?? 'app', image: 'example.invalid/app:1', ports: [{ name: 'http', containerPort: 9080 }] },
      ...(meshed ? [{ name: 'mesh-proxy', image: 'example.invalid/proxy:1', ports: [{ name: 'http-envoy-prom', containerPort: 15090 }] }] : []),
    ];
    const created = await client.request<Record<string, unknown>>('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: {
        metadata: { name, namespace: ns, labels, annotations: meshed ? { 'sidecar.mesh.io/status': '{"revision":"default"}' } : {} },
        spec: { serviceAccountName: 'default', containers },
      },
    });
    await client.request('PUT', `/api/v1/namespaces/${ns}/pods/${name}/status`, {
      body: {
        ...created,
        status: {
          phase: 'Running',
          podIP: ip,
          podIPs: [{ ip }],
          ...(opts.hostIP ? { hostIP: opts.hostIP } : {}),
          conditions: [{ type: 'Ready', status: 'True' }],
          containerStatuses: containers.map((c) => ({ name: c.name, ready: true, restartCount: 0, image: c.image, imageID: '', state: { running: {} } })),
        },
      },
    });
  }

  async function service(name: string, selector: Record<string, string>, port: number, portName = 'http'): Promise<void> {
    await post(`/api/v1/namespaces/${ns}/services`, { metadata: { name, namespace: ns }, spec: { selector, ports: [{ name: portName, port, targetPort: portName === 'http' && port !== 80 ? 9080 : port }] } });
  }

  async function slice(svc: string, pods: readonly [string, string][]): Promise<void> {
    await post(`/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {
      metadata: { name: svc, namespace: ns, labels: { 'kubernetes.io/service-name': svc } },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 9080, protocol: 'TCP' }],
      endpoints: pods.map(([p, ip]) => ({ addresses: [ip], conditions: { ready: true }, targetRef: { kind: 'Pod', name: p, namespace: ns } })),
    });
  }

  before(async () => {
    kc = e2eCluster().kubeConfig();
    client = new OrchClient(kc, { qps: 100, burst: 200, contentType: 'json' });
    ns = await createTestNamespace(kc.makeApiClient(CoreV1Api), 'e2e-describe');
    await applyCrds(client, renderCrds());
    home = mkdtempSync(join(tmpdir(), 'e2e-describe-'));
    await service('reviews', { app: 'reviews' }, 9080);
    await service('productpage', { app: 'productpage' }, 9080);
    await service('mesh-ingressgateway', { mesh: 'ingressgateway' }, 80);
    for (const [v, ip] of [['v1', '10.0.1.1'], ['v2', '10.0.1.2'], ['v3', '10.0.1.3']] as const) await pod(`reviews-${v}`, { app: 'reviews', version: `${v}.0` }, ip);
    await pod('productpage-v1', { app: 'productpage', version: 'v1.0' }, '10.0.0.1');
    await pod('legacy', { app: 'legacy' }, '10.0.9.9', { meshed: false });
    await pod('ingressgateway', { mesh: 'ingressgateway' }, '10.0.5.5', { meshed: false, app: 'mesh-proxy', hostIP: '192.0.2.80' });
    await slice('reviews', [['reviews-v1', '10.0.1.1'], ['reviews-v2', '10.0.1.2'], ['reviews-v3', '10.0.1.3']]);
    await slice('productpage', [['productpage-v1', '10.0.0.1']]);
    await post(net('virtualservices'), {
      apiVersion: 'networking.mesh.io/v1',
      kind: 'VirtualService',
      metadata: { name: 'reviews', namespace: ns },
      spec: { hosts: ['reviews'], http: [{ route: [{ destination: { host: 'reviews', subset: 'v1' }, weight: 90 }, { destination: { host: 'reviews', subset: 'v2' }, weight: 10 }] }] },
    });
    await post(net('destinationrules'), {
      apiVersion: 'networking.mesh.io/v1',
      kind: 'DestinationRule',
      metadata: { name: 'reviews', namespace: ns },
      spec: {
        host: 'reviews',
        trafficPolicy: { tls: { mode: 'MESH_MUTUAL' } },
        subsets: ['v1', 'v2', 'v3'].map((v) => ({ name: v, labels: { version: `${v}.0` } })),
      },
    });
    await post(net('gateways'), {
      apiVersion: 'networking.mesh.io/v1',
      kind: 'Gateway',
      metadata: { name: 'bookinfo-gateway', namespace: ns },
      spec: { selector: { mesh: 'ingressgateway' }, servers: [{ port: { number: 80, name: 'http', protocol: 'HTTP' }, hosts: ['*'] }] },
    });
    await post(net('virtualservices'), {
      apiVersion: 'networking.mesh.io/v1',
      kind: 'VirtualService',
      metadata: { name: 'bookinfo', namespace: ns },
      spec: { hosts: ['*'], gateways: ['bookinfo-gateway'], http: [{ match: [{ uri: { exact: '/productpage' } }, { uri: { prefix: '/static' } }], route: [{ destination: { host: 'productpage', port: { number: 9080 } } }] }] },
    });
    await post(sec('peerauthentications'), { apiVersion: 'security.mesh.io/v1', kind: 'PeerAuthentication', metadata: { name: 'default', namespace: ns }, spec: { mtls: { mode: 'STRICT' } } });
    await post(sec('authorizationpolicies'), {
      apiVersion: 'security.mesh.io/v1',
      kind: 'AuthorizationPolicy',
      metadata: { name: 'reviews-viewer', namespace: ns },
      spec: { selector: { matchLabels: { app: 'reviews' } }, action: 'ALLOW', rules: [{ from: [{ source: { principals: ['cluster.local/ns/default/sa/bookinfo-productpage'] } }] }] },
    });
  });

  after(async () => {
    if (home) rmSync(home, { recursive: true, force: true });
    if (ns) await deleteNamespaceFully(kc.makeApiClient(CoreV1Api), ns);
  });

  const describeCmd = async (...args: string[]): Promise<{ code: number; lines: string[]; err: string }> => {
    const io = bufferIo({ TERM: 'dumb', HOME: home });
    const code = await runCli(meshctlCommand(), ['x', 'describe', ...args, '--orchconfig', e2eCluster().kubeconfigPath, '-n', ns], io);
    return { code, lines: io.out().split('\n').slice(0, -1), err: io.err() };
  };

  it('given a reviews pod should explain its Service, DestinationRule subsets, VirtualService weights, the simulated split, mTLS and authorization', async () => {
    const r = await describeCmd('pod', 'reviews-v1');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.lines, [
      'Pod: reviews-v1',
      '   Pod Revision: default',
      '   Pod Ports: 9080 (reviews), 15090 (mesh-proxy)',
      '--------------------',
      'Service: reviews',
      '   Port: http 9080/HTTP targets pod port 9080',
      'DestinationRule: reviews for "reviews"',
      '   Matching subsets: v1',
      '      (Non-matching subsets v2,v3)',
      '   Traffic Policy TLS Mode: MESH_MUTUAL',
      'VirtualService: reviews',
      '   Route to host "reviews" subset "v1" with weight 90%',
      `   Requests to reviews:9080 from ${ns} (simulated GET /): 90% subset v1, 10% subset v2`,
      '      90% of them reach this pod',
      '--------------------',
      'Effective PeerAuthentication:',
      '   Workload mTLS mode: STRICT',
      'Applied PeerAuthentication:',
      `   default.${ns}`,
      'Applied AuthorizationPolicy:',
      `   reviews-viewer.${ns} (ALLOW)`,
    ]);
  });

  it('given the reviews service should show every subset its pods match and both weighted routes', async () => {
    const r = await describeCmd('service', `reviews.${ns}`);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.lines, [
      'Service: reviews',
      '   Port: http 9080/HTTP targets pod port 9080',
      'DestinationRule: reviews for "reviews"',
      '   Matching subsets: v1,v2,v3',
      '   Traffic Policy TLS Mode: MESH_MUTUAL',
      'VirtualService: reviews',
      '   Route to host "reviews" subset "v1" with weight 90%',
      '   Route to host "reviews" subset "v2" with weight 10%',
      `   Requests to reviews:9080 from ${ns} (simulated GET /): 90% subset v1, 10% subset v2`,
    ]);
  });

  it('given productpage should show it exposed on the ingress gateway through the gateway-bound VirtualService', async () => {
    const r = await describeCmd('pod', 'productpage-v1');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.lines.slice(r.lines.indexOf('Effective PeerAuthentication:')), [
      'Effective PeerAuthentication:',
      '   Workload mTLS mode: STRICT',
      'Applied PeerAuthentication:',
      `   default.${ns}`,
      '--------------------',
      'Exposed on Ingress Gateway http://192.0.2.80',
      'VirtualService: bookinfo',
      '   Match: /productpage, Match: /static*',
    ]);
    assert.ok(r.lines.includes(`   Requests to productpage:9080 from ${ns} (simulated GET /): 100% all endpoints`), r.lines.join('\n'));
  });

  it('given a pod without a sidecar should warn, and say nothing with --ignoreUnmeshed', async () => {
    const warned = await describeCmd('pod', 'legacy');
    assert.equal(warned.code, 0, warned.err);
    assert.ok(warned.lines.includes('WARNING: legacy is not part of mesh; no Mesh sidecar'), warned.lines.join('\n'));
    assert.ok(warned.lines.includes('Warning: No orchestrator Services select pod legacy (a mesh workload needs a Service)'), warned.lines.join('\n'));
    const quiet = await describeCmd('pod', 'legacy', '--ignoreUnmeshed');
    assert.ok(!quiet.lines.some((l) => /WARNING|Warning/.test(l)), quiet.lines.join('\n'));
  });

  it('given a service whose pods have no sidecar should say so', async () => {
    await service('legacy', { app: 'legacy' }, 8080, 'tcp');
    const r = await describeCmd('service', 'legacy');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.lines, [
      'Pod legacy: no container "mesh-proxy" in pod',
      'Service "legacy" has no Mesh pods.  (1 pods in service).',
      'Use `meshctl orch-inject` or redeploy with Mesh automatic sidecar injection.',
    ]);
  });

  it('given names the API server does not have should fail naming them', async () => {
    const p = await describeCmd('pod', 'not-a-pod');
    assert.equal(p.code, 1);
    assert.match(p.err, new RegExp(`pods "not-a-pod" not found in namespace ${ns}`));
    const s = await describeCmd('svc', 'not-a-service');
    assert.equal(s.code, 1);
    assert.match(s.err, new RegExp(`services "not-a-service" not found in namespace ${ns}`));
  });
});
