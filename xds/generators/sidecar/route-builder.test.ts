/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { encode } from '../../protos/codec.js';
import { validate } from '../../protos/validate.js';
import { buildSidecarRouteConfiguration, serviceDomains } from './route-builder.js';
import { ENVOY } from './sidecar-names.js';
import { sidecarAt, sidecarModel, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const REVIEWS = 'reviews.default.svc.cluster.local';

function routeConfig(name: string, yaml = SIDECAR_MESH, mesh = {}): any {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml, mesh));
  return buildSidecarRouteConfiguration(snap.pushContext, proxy, name)?.resource;
}

function vhost(rc: any, name: string): any {
  const vh = rc.virtualHosts.find((v: any) => v.name === name);
  assert.ok(vh, `virtual host ${name} among ${rc.virtualHosts.map((v: any) => v.name).join(', ')}`);
  return vh;
}

/** A mesh whose reviews VirtualService is replaced by `http` (YAML list of HTTP routes, indented 2). */
function withRoutes(http: string): string {
  const start = SIDECAR_MESH.indexOf('kind: VirtualService');
  const end = SIDECAR_MESH.indexOf('---', start);
  return `${SIDECAR_MESH.slice(0, start)}kind: VirtualService
metadata: { name: reviews, namespace: default }
spec:
  hosts: [reviews]
  http:
${http}
${SIDECAR_MESH.slice(end)}`;
}

describe('sidecar route builder', () => {
  it('given a service in the proxy namespace should list Istio domains without ports (FQDN, FQDN., short, name.ns.svc, name.ns, VIP) and ignore the Host port, as istiod', () => {
    const rc = routeConfig('9080');
    const vh = vhost(rc, `${REVIEWS}:9080`);
    assert.deepEqual(vh.domains, [REVIEWS, `${REVIEWS}.`, 'reviews', 'reviews.default.svc', 'reviews.default', '10.96.0.10']);
    assert.equal(rc['ignorePortInHostMatching'], true);
    assert.deepEqual(rc['maxDirectResponseBodySizeBytes'], { value: 1048576 });
    // NOTE: istiod's default route: the grpc-timeout header capped at 0 (none), no retriable status codes listed.
    const action = vh.routes[0].route;
    assert.deepEqual([action.maxGrpcTimeout, action.maxStreamDuration, action.retryPolicy.retriableStatusCodes], [{ seconds: 0, nanos: 0 }, undefined, undefined]);
  });

  it('given a service in another namespace should leave out the short name; with ports (a unix socket) each name twice', () => {
    const svc = { hostname: 'db.data.svc.cluster.local', addresses: [] } as any;
    assert.deepEqual(serviceDomains(svc, 80, 'default', 'cluster.local'), ['db.data.svc.cluster.local', 'db.data.svc.cluster.local.', 'db.data.svc', 'db.data']);
    assert.deepEqual(serviceDomains(svc, 80, 'default', 'cluster.local', true), ['db.data.svc.cluster.local', 'db.data.svc.cluster.local:80', 'db.data.svc.cluster.local.', 'db.data.svc.cluster.local.:80', 'db.data.svc', 'db.data.svc:80', 'db.data', 'db.data:80']);
  });

  it('given a VirtualService with only tcp or tls routes on an HTTP service should keep the default route (as istiod)', () => {
    const yaml = withRoutes('').replace('  http:\n\n', '  tls: [{ match: [{ sniHosts: [reviews.default.svc.cluster.local] }], route: [{ destination: { host: reviews } }] }]\n');
    const vh = vhost(routeConfig('9080', yaml), `${REVIEWS}:9080`);
    assert.deepEqual(vh.routes.map((r: any) => [r.name, r.route?.cluster]), [['default', `outbound|9080||${REVIEWS}`]]);
  });

  it('given a header and uri match should route it to the subset cluster with its fault', () => {
    const r = vhost(routeConfig('9080'), `${REVIEWS}:9080`).routes[0];
    assert.equal(r.name, 'jason');
    assert.deepEqual(r.match, { prefix: '/reviews', caseSensitive: { value: true }, headers: [{ name: 'end-user', stringMatch: { exact: 'jason' } }] });
    assert.equal(r.route.cluster, `outbound|9080|v2|${REVIEWS}`);
    assert.deepEqual(r.typedPerFilterConfig['envoy.filters.http.fault'].abort, { httpStatus: 503, percentage: { numerator: 100000, denominator: 'MILLION' } });
  });

  it('given weighted destinations should split by weight with timeout, retries and header set', () => {
    const r = vhost(routeConfig('9080'), `${REVIEWS}:9080`).routes[1];
    assert.deepEqual(r.route.weightedClusters.clusters.map((c: any) => [c.name, c.weight.value]), [[`outbound|9080|v1|${REVIEWS}`, 80], [`outbound|9080|v2|${REVIEWS}`, 20]]);
    assert.deepEqual(r.route.timeout, { seconds: 2, nanos: 0 });
    assert.equal(r.route.retryPolicy.numRetries.value, 3);
    assert.equal(r.route.retryPolicy.retryOn, '5xx,connect-failure,retriable-status-codes');
    assert.deepEqual(r.route.retryPolicy.retriableStatusCodes, [503]);
    assert.deepEqual(r.route.retryPolicy.perTryTimeout, { seconds: 0, nanos: 500_000_000 });
    assert.deepEqual(r.requestHeadersToAdd, [{ header: { key: 'x-split', value: 'yes' }, appendAction: 'OVERWRITE_IF_EXISTS_OR_ADD' }]);
    assert.equal(r.metadata.filterMetadata.mesh.fields.sources.listValue.values[0].stringValue, 'VirtualService/default/reviews@4');
  });

  it('given no VirtualService should serve the default route with Istio default retries and no timeout', () => {
    const r = vhost(routeConfig('9080'), 'productpage.default.svc.cluster.local:9080').routes;
    assert.equal(r.length, 1);
    assert.deepEqual([r[0].name, r[0].match, r[0].route.cluster], ['default', { prefix: '/' }, 'outbound|9080||productpage.default.svc.cluster.local']);
    assert.deepEqual(r[0].route.timeout, { seconds: 0, nanos: 0 });
    assert.equal(r[0].route.retryPolicy.numRetries.value, 2);
  });

  it('given ALLOW_ANY should end with the allow_any virtual host to PassthroughCluster, REGISTRY_ONLY with block_all 502', () => {
    const allow = routeConfig('9080').virtualHosts.at(-1);
    assert.deepEqual([allow.name, allow.domains, allow.routes[0].route.cluster], ['allow_any', ['*'], 'PassthroughCluster']);
    const block = routeConfig('9080', SIDECAR_MESH, { outboundTrafficPolicy: { mode: 'REGISTRY_ONLY' } }).virtualHosts.at(-1);
    assert.deepEqual([block.name, block.routes[0].directResponse], ['block_all', { status: 502 }]);
  });

  const routeCases: { name: string; http: string; check: (routes: any[]) => void }[] = [
    {
      name: 'given method, regex uri, query param and withoutHeaders matches should translate each',
      http: `  - match: [{ method: { exact: POST }, uri: { regex: "/r/[0-9]+" }, queryParams: { debug: { exact: "1" } }, withoutHeaders: { x-test: {} }, ignoreUriCase: true }]
    route: [{ destination: { host: reviews } }]`,
      check: (rs) =>
        assert.deepEqual(rs[0].match, {
          safeRegex: { regex: '/r/[0-9]+' },
          caseSensitive: { value: false },
          headers: [{ name: ':method', stringMatch: { exact: 'POST' } }, { name: 'x-test', presentMatch: true, invertMatch: true }],
          queryParameters: [{ name: 'debug', stringMatch: { exact: '1' } }],
        }),
    },
    {
      name: 'given a redirect should answer with Envoy redirect and the code',
      http: `  - redirect: { uri: /v2, authority: new.example.com, redirectCode: 308 }`,
      check: (rs) => assert.deepEqual(rs[0].redirect, { pathRedirect: '/v2', hostRedirect: 'new.example.com', responseCode: 'PERMANENT_REDIRECT' }),
    },
    {
      name: 'given a direct response should answer with status and body',
      http: `  - directResponse: { status: 418, body: { string: teapot } }`,
      check: (rs) => assert.deepEqual(rs[0].directResponse, { status: 418, body: { inlineString: 'teapot' } }),
    },
    {
      name: 'given rewrite should set prefix and host rewrite',
      http: `  - rewrite: { uri: /new, authority: other }
    route: [{ destination: { host: reviews } }]`,
      check: (rs) => assert.deepEqual([rs[0].route.prefixRewrite, rs[0].route.hostRewriteLiteral], ['/new', 'other']),
    },
    {
      name: 'given a mirror with a percentage should add a request mirror policy to its cluster',
      http: `  - mirror: { host: reviews, subset: v2 }
    mirrorPercentage: { value: 25 }
    route: [{ destination: { host: reviews, subset: v1 } }]`,
      check: (rs) =>
        assert.deepEqual(rs[0].route.requestMirrorPolicies, [{ cluster: `outbound|9080|v2|${REVIEWS}`, runtimeFraction: { defaultValue: { numerator: 250000, denominator: 'MILLION' } }, traceSampled: { value: false } }]),
    },
    {
      name: 'given retryRemoteLocalities should add the previous-priorities plugin as istiod (update frequency 2), which Envoy requires configured',
      http: `  - retries: { attempts: 2, retryRemoteLocalities: true }
    route: [{ destination: { host: reviews } }]`,
      check: (rs) =>
        assert.deepEqual(rs[0].route.retryPolicy.retryPriority, {
          name: 'envoy.retry_priorities.previous_priorities',
          typedConfig: { '@type': 'type.googleapis.com/envoy.extensions.retry.priority.previous_priorities.v3.PreviousPrioritiesConfig', updateFrequency: 2 },
        }),
    },
    {
      name: 'given retries with zero attempts should send no retry policy',
      http: `  - retries: { attempts: 0 }
    route: [{ destination: { host: reviews } }]`,
      check: (rs) => assert.equal(rs[0].route.retryPolicy, undefined),
    },
    {
      name: 'given a delay fault and CORS should configure both per route',
      http: `  - fault: { delay: { fixedDelay: 5s, percentage: { value: 100 } } }
    corsPolicy: { allowOrigins: [{ exact: "https://a.example" }], allowMethods: [GET, POST], maxAge: 24h }
    route: [{ destination: { host: reviews } }]`,
      check: (rs) => {
        assert.deepEqual(rs[0].typedPerFilterConfig['envoy.filters.http.fault'].delay.fixedDelay, { seconds: 5, nanos: 0 });
        const cors = rs[0].typedPerFilterConfig['envoy.filters.http.cors'];
        assert.deepEqual([cors.allowOriginStringMatch, cors.allowMethods, cors.maxAge], [[{ exact: 'https://a.example' }], 'GET,POST', '86400']);
      },
    },
    {
      name: 'given a match bound to another port or source label should leave that route out',
      http: `  - match: [{ port: 8080 }]
    route: [{ destination: { host: reviews, subset: v1 } }]
  - match: [{ sourceLabels: { app: other } }]
    route: [{ destination: { host: reviews, subset: v1 } }]
  - route: [{ destination: { host: reviews, subset: v2 } }]`,
      check: (rs) => assert.deepEqual(rs.map((r) => r.route.cluster), [`outbound|9080|v2|${REVIEWS}`]),
    },
    {
      name: 'given a catch-all route before others should stop there as Envoy never reaches later routes',
      http: `  - route: [{ destination: { host: reviews, subset: v1 } }]
  - match: [{ uri: { prefix: /x } }]
    route: [{ destination: { host: reviews, subset: v2 } }]`,
      check: (rs) => assert.equal(rs.length, 1),
    },
  ];
  for (const c of routeCases) {
    it(c.name, () => {
      const rc = routeConfig('9080', withRoutes(c.http));
      // NOTE: every case's whole route configuration passes the Envoy protos' protoc-gen-validate rules.
      assert.deepEqual(validate(ENVOY.route, encode(ENVOY.route, rc)), []);
      c.check(vhost(rc, `${REVIEWS}:9080`).routes);
    });
  }

  it('given a delegate VirtualService should splice its routes in with matches merged under the root match', () => {
    const yaml = `${withRoutes(`  - match: [{ uri: { prefix: /api } }]
    delegate: { name: reviews-api, namespace: default }
  - route: [{ destination: { host: reviews, subset: v1 } }]`)}
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: reviews-api, namespace: default }
spec:
  http:
  - match: [{ headers: { x-v: { exact: "2" } } }]
    route: [{ destination: { host: reviews, subset: v2 } }]
  - match: [{ uri: { prefix: /other } }]
    route: [{ destination: { host: reviews, subset: v2 } }]
  - route: [{ destination: { host: reviews, subset: v1 } }]
`;
    const rs = vhost(routeConfig('9080', yaml), `${REVIEWS}:9080`).routes;
    assert.deepEqual(
      rs.map((r: any) => [r.name, r.match, r.route.cluster]),
      [
        ['default/reviews-api/0', { prefix: '/api', caseSensitive: { value: true }, headers: [{ name: 'x-v', stringMatch: { exact: '2' } }] }, `outbound|9080|v2|${REVIEWS}`],
        ['default/reviews-api/2', { prefix: '/api', caseSensitive: { value: true } }, `outbound|9080|v1|${REVIEWS}`],
        ['default/reviews/1', { prefix: '/' }, `outbound|9080|v1|${REVIEWS}`],
      ],
    );
    assert.deepEqual(rs[0].metadata.filterMetadata.mesh.fields.sources.listValue.values.map((v: any) => v.stringValue), ['VirtualService/default/reviews-api@0', 'VirtualService/default/reviews@0']);
  });

  it('given a delegate that does not exist should drop the delegating route', () => {
    const rs = vhost(routeConfig('9080', withRoutes(`  - delegate: { name: missing }
  - route: [{ destination: { host: reviews, subset: v1 } }]`)), `${REVIEWS}:9080`).routes;
    assert.deepEqual(rs.map((r: any) => r.route.cluster), [`outbound|9080|v1|${REVIEWS}`]);
  });

  it('given a name that is not a port should serve nothing', () => {
    assert.equal(routeConfig('outbound|9080||x'), undefined);
  });
});
