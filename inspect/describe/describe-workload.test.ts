import assert from 'node:assert/strict';
import { defaultMeshConfig, type Config } from '../../core/index.js';
import { snapshotOf, type DescribeCluster, type DescribedPod, type ServiceObject } from './describe-cluster.js';
import { portProtocolName, renderMatch, simulationLines } from './describe-render.js';
import { describePod, describeService, DescribeNotFoundError, podRevision, splitTarget } from './describe-workload.js';

const NS = 'shop';
const cfg = (kind: string, name: string, spec: Record<string, unknown>, namespace = NS): Config => ({
  apiVersion: kind.endsWith('Authentication') || kind === 'AuthorizationPolicy' ? 'security.mesh.io/v1' : 'networking.mesh.io/v1',
  kind,
  metadata: { name, namespace, creationTimestamp: '2026-01-01T00:00:00Z' },
  spec,
});
const pod = (name: string, labels: Record<string, string>, over: Partial<DescribedPod> = {}): DescribedPod => ({
  metadata: { name, namespace: NS, labels, annotations: { 'mesh.io/rev': 'canary' } },
  spec: { containers: [{ name: 'app', ports: [{ containerPort: 8080, name: 'web' }, { containerPort: 9090, protocol: 'UDP' }] }, { name: 'mesh-proxy' }] },
  status: { phase: 'Running', containerStatuses: [{ name: 'app', ready: true }, { name: 'mesh-proxy', ready: true }] },
  ...over,
});
const cart: ServiceObject = {
  metadata: { name: 'cart', namespace: NS },
  spec: { selector: { app: 'cart' }, ports: [{ name: 'http-web', port: 80, targetPort: 'web' }, { name: 'grpc', port: 7070, targetPort: 7070 }] },
};

function cluster(configs: Config[], pods: DescribedPod[], services: ServiceObject[] = [cart]): DescribeCluster {
  const meshConfig = defaultMeshConfig();
  const entries: Config[] = services.map((s) => ({
    apiVersion: 'networking.mesh.io/v1',
    kind: 'ServiceEntry',
    metadata: { name: s.metadata.name, namespace: NS },
    spec: { hosts: [`${s.metadata.name}.${NS}.svc.cluster.local`], ports: (s.spec?.ports ?? []).map((p) => ({ number: p.port, name: p.name, protocol: 'HTTP' })), resolution: 'STATIC', location: 'MESH_INTERNAL' },
  }));
  const all = [...configs, ...entries];
  return { namespace: NS, domain: 'cluster.local', meshConfig, pods, services, configs: all, snapshot: snapshotOf(all, meshConfig, 'cluster.local') };
}

describe('x describe (rendering from meshd\'s model)', () => {
  const dr = cfg('DestinationRule', 'cart', {
    host: 'cart',
    trafficPolicy: { loadBalancer: { simple: 'LEAST_REQUEST' }, outlierDetection: {}, portLevelSettings: [{ port: { number: 7070 }, tls: { mode: 'DISABLE' } }] },
    subsets: [{ name: 'stable', labels: { track: 'stable' } }, { name: 'canary', labels: { track: 'canary' } }],
  });
  const vs = cfg('VirtualService', 'cart', {
    hosts: ['cart'],
    http: [
      { match: [{ headers: { 'x-canary': { exact: 'yes' } } }], route: [{ destination: { host: 'cart', subset: 'canary' } }] },
      { route: [{ destination: { host: 'cart', subset: 'stable' }, weight: 70 }, { destination: { host: 'cart', subset: 'gone' }, weight: 30 }] },
    ],
  });
  const pa = cfg('PeerAuthentication', 'cart', { selector: { matchLabels: { app: 'cart' } }, mtls: { mode: 'STRICT' }, portLevelMtls: { '8080': { mode: 'PERMISSIVE' } } });
  const meshPa = cfg('PeerAuthentication', 'default', { mtls: { mode: 'PERMISSIVE' } }, 'mesh-system');

  it('given a two-port Service, port-level DestinationRule settings and port-level mTLS should print each port and policy', () => {
    const c = cluster([dr, vs, pa, meshPa], [pod('cart-1', { app: 'cart', track: 'stable', version: 'v1' })]);
    assert.deepEqual(describePod(c, 'cart-1', NS, { ignoreUnmeshed: false }), [
      'Pod: cart-1',
      '   Pod Revision: canary',
      '   Pod Ports: 8080 (app), 9090/UDP (app)',
      '--------------------',
      'Service: cart',
      '   Port: http-web 80/HTTP targets pod port 8080',
      '   Port: grpc 7070/GRPC targets pod port 7070',
      '80:',
      '   DestinationRule: cart for "cart"',
      '      Matching subsets: stable',
      '         (Non-matching subsets canary)',
      '      Policies: load balancer/outlier detection',
      '      Port Level Settings:',
      '    7070:',
      '         TLS Mode: DISABLE',
      '   VirtualService: cart',
      '      Route to host "cart" subset "stable" with weight 70%',
      '      1 additional destination(s) that will not reach this pod',
      '7070:',
      '   DestinationRule: cart for "cart"',
      '      Matching subsets: stable',
      '         (Non-matching subsets canary)',
      '      Policies: load balancer/outlier detection',
      '      Port Level Settings:',
      '    7070:',
      '         TLS Mode: DISABLE',
      '   VirtualService: cart',
      '      Route to host "cart" subset "stable" with weight 70%',
      '      1 additional destination(s) that will not reach this pod',
      '--------------------',
      'Effective PeerAuthentication:',
      '   Workload mTLS mode: STRICT',
      '   Port Level mTLS mode:',
      '      8080: PERMISSIVE',
      'Applied PeerAuthentication:',
      `   default.mesh-system, cart.${NS}`,
      'Skipping Gateway information (no ingress gateway pods)',
    ]);
  });

  it('given a pod matching no subset should warn and list the routes that miss it', () => {
    const c = cluster([dr, vs], [pod('cart-x', { app: 'cart', track: 'experimental', version: 'v1' })], [{ metadata: { name: 'cart', namespace: NS }, spec: { selector: { app: 'cart' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } }]);
    const lines = describePod(c, 'cart-x', NS, { ignoreUnmeshed: false });
    assert.deepEqual(lines.slice(lines.indexOf('DestinationRule: cart for "cart"'), lines.indexOf('DestinationRule: cart for "cart"') + 11), [
      'DestinationRule: cart for "cart"',
      '   WARNING POD DOES NOT MATCH ANY SUBSETS.  (Non matching subsets stable,canary)',
      '   Matching subsets: ',
      '      (Non-matching subsets stable,canary)',
      '   Policies: load balancer/outlier detection',
      '   Port Level Settings:',
      '    7070:',
      '      TLS Mode: DISABLE',
      'VirtualService: cart',
      '   WARNING: No destinations match pod subsets (checked 2 HTTP routes)',
      '      Route to non-matching subset canary for (Match: when headers are x-canary=yes)',
    ]);
    assert.ok(lines.includes(`      Warning: Route to UNKNOWN subset gone; check DestinationRule cart`), lines.join('\n'));
  });

  it('given a pod that is not Running, or not meshed, should say so and stop the pod block', () => {
    const pending = pod('cart-p', { app: 'cart' }, { status: { phase: 'Pending' } });
    const bare = pod('cart-b', { app: 'cart', version: 'v1' }, { spec: { containers: [{ name: 'app' }] }, status: { phase: 'Running', containerStatuses: [{ name: 'app', ready: true }] } });
    const c = cluster([], [pending, bare]);
    assert.deepEqual(describePod(c, 'cart-p', NS, { ignoreUnmeshed: false }).slice(0, 4), ['Pod: cart-p', '   Pod Revision: canary', '   Pod Ports: 8080 (app), 9090/UDP (app)', '   Pod is not Running (Pending)']);
    assert.deepEqual(describePod(c, 'cart-b', NS, { ignoreUnmeshed: false }).slice(0, 4), ['Pod: cart-b', '   Pod Revision: canary', '   Pod does not expose ports', 'WARNING: cart-b is not part of mesh; no Mesh sidecar']);
    assert.equal(describeService(c, 'cart', NS, { ignoreUnmeshed: false }).join('\n'), [`   Pod cart-p is not Running (Pending)`, 'Pod cart-b: no container "mesh-proxy" in pod', 'Service "cart" has no Mesh pods.  (2 pods in service).', 'Use `meshctl orch-inject` or redeploy with Mesh automatic sidecar injection.'].join('\n'));
    assert.throws(() => describePod(c, 'nope', NS, { ignoreUnmeshed: false }), (e: unknown) => e instanceof DescribeNotFoundError && e.message === `pods "nope" not found in namespace ${NS}`);
  });

  it('given a simulated split should give each share and the part reaching the pod', () => {
    const svc = cart;
    const r = { outcome: 'routed', splits: [{ host: `cart.${NS}.svc.cluster.local`, subset: 'stable', weight: 2 }, { host: `cart.${NS}.svc.cluster.local`, subset: 'canary', weight: 1 }, { host: 'other.x.svc.cluster.local', subset: '', weight: 1 }] };
    assert.deepEqual(simulationLines(0, r, svc, 80, NS, 'cluster.local', ['stable']), [
      `   Requests to cart:80 from ${NS} (simulated GET /): 50% subset stable, 25% subset canary, 25% other.x.svc.cluster.local`,
      '      50% of them reach this pod',
    ]);
    assert.deepEqual(simulationLines(0, { outcome: 'no-route', splits: [] }, svc, 80, 'elsewhere', 'cluster.local'), [`   Requests to cart.${NS}:80 from elsewhere (simulated GET /): not routed (no-route)`]);
  });

  const protocols: [Parameters<typeof portProtocolName>[0], string][] = [
    [{ name: 'http', port: 80 }, 'HTTP'],
    [{ name: 'http2-x', port: 80 }, 'HTTP2'],
    [{ name: 'grpc-web', port: 80 }, 'GRPC-Web'],
    [{ name: 'tcp-db', port: 5432 }, 'TCP'],
    [{ name: 'web', port: 80, appProtocol: 'http' }, 'HTTP'],
    [{ port: 80 }, 'auto-detect'],
    [{ name: 'dns', port: 53, protocol: 'UDP' }, 'UDP'],
  ];
  for (const [port, want] of protocols) {
    it(`given the port ${JSON.stringify(port)} should name its protocol ${want}`, () => assert.equal(portProtocolName(port), want));
  }

  it('given targets, matches and sidecar status annotations should read them as istioctl does', () => {
    assert.deepEqual(splitTarget('reviews-v1.bookinfo', 'default'), { name: 'reviews-v1', namespace: 'bookinfo' });
    assert.deepEqual(splitTarget('reviews-v1', 'default'), { name: 'reviews-v1', namespace: 'default' });
    assert.equal(renderMatch({ uri: { prefix: '/api' }, ignoreUriCase: true }), 'Match: /api* uncased');
    assert.equal(podRevision({ metadata: { name: 'p', annotations: { 'sidecar.mesh.io/status': '{"revision":"1-2"}' } } }), '1-2');
    assert.equal(podRevision({ metadata: { name: 'p', annotations: { 'sidecar.mesh.io/status': 'not json' } } }), '');
  });
});
