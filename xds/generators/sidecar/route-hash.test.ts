/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { encode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { validate } from '../../protos/validate.js';
import { buildSidecarRouteConfiguration } from './route-builder.js';
import { ENVOY } from './sidecar-names.js';
import { sidecarAt, sidecarModel, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const SHOP = 'shop.default.svc.cluster.local';
const PREVIOUS_HOSTS = 'envoy.retry_host_predicates.previous_hosts';

/** The shop service (two HTTP ports, subsets v1 and v2) beside the sidecar mesh, with a DestinationRule `trafficPolicy` / `subsets` and an optional VirtualService. */
function mesh(dr: string | undefined, vsHttp?: string): string {
  const parts = [
    SIDECAR_MESH,
    `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: shop, namespace: default }
spec:
  hosts: [${SHOP}]
  addresses: [10.96.0.50]
  location: MESH_INTERNAL
  ports: [{ number: 8080, name: http, protocol: HTTP }, { number: 9090, name: http-admin, protocol: HTTP }]
  resolution: STATIC`,
  ];
  if (dr !== undefined) {
    parts.push(`apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: shop, namespace: default }
spec:
  host: ${SHOP}
${dr}`);
  }
  if (vsHttp !== undefined) {
    parts.push(`apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: shop, namespace: default }
spec:
  hosts: [shop]
  http:
${vsHttp}`);
  }
  return parts.join('\n---\n');
}

const SUBSETS = `  subsets:
  - { name: v1, labels: { version: v1 } }
  - name: v2
    labels: { version: v2 }
    trafficPolicy: { loadBalancer: { consistentHash: { httpQueryParameterName: session } } }
  - name: v3
    labels: { version: v3 }
    trafficPolicy:
      loadBalancer: { consistentHash: { httpQueryParameterName: session } }
      portLevelSettings: [{ port: { number: 8080 }, loadBalancer: { consistentHash: { httpHeaderName: x-v3-port } } }]`;

function shopRoutes(yaml: string, port = 8080): any[] {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml));
  const rc = buildSidecarRouteConfiguration(snap.pushContext, proxy, String(port))?.resource as any;
  assert.ok(rc, `route configuration ${port}`);
  // NOTE: every case's whole route configuration passes the Envoy protos' protoc-gen-validate rules.
  assert.deepEqual(validate(ENVOY.route, encode(ENVOY.route, rc)), [], `route configuration ${port} validates`);
  const vh = rc.virtualHosts.find((v: any) => v.name === `${SHOP}:${port}`);
  assert.ok(vh, `virtual host ${SHOP}:${port}`);
  return vh.routes;
}

const predicates = (r: any): string[] | undefined => r.route.retryPolicy?.retryHostPredicate?.map((p: any) => p.name);

describe('consistent hash on sidecar routes (istiod route.go)', () => {
  before(function () {
    this.timeout(60_000);
    protoRoot();
  });

  // NOTE: the default route of a service without a VirtualService: one hash policy per hash key kind, and, as
  // istiod's BuildDefaultHTTPOutboundRoute, the default retry policy WITH previous_hosts.
  const serviceCases: { name: string; dr: string | undefined; port?: number; want: unknown }[] = [
    { name: 'given httpHeaderName should hash on the header', dr: '  trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: x-user } } }', want: [{ header: { headerName: 'x-user' } }] },
    {
      name: 'given httpCookie with path, ttl and attributes should hash on the cookie with all of them',
      dr: '  trafficPolicy: { loadBalancer: { consistentHash: { httpCookie: { name: sticky, path: /shop, ttl: 90s, attributes: [{ name: SameSite, value: Strict }, { name: Secure }] } } } }',
      want: [{ cookie: { name: 'sticky', path: '/shop', ttl: { seconds: 90, nanos: 0 }, attributes: [{ name: 'SameSite', value: 'Strict' }, { name: 'Secure' }] } }],
    },
    { name: 'given httpCookie with a name only should hash on a session cookie (no ttl, no path)', dr: '  trafficPolicy: { loadBalancer: { consistentHash: { httpCookie: { name: sticky } } } }', want: [{ cookie: { name: 'sticky' } }] },
    { name: 'given useSourceIp should hash on the source address', dr: '  trafficPolicy: { loadBalancer: { consistentHash: { useSourceIp: true } } }', want: [{ connectionProperties: { sourceIp: true } }] },
    { name: 'given httpQueryParameterName should hash on the query parameter', dr: '  trafficPolicy: { loadBalancer: { consistentHash: { httpQueryParameterName: user } } }', want: [{ queryParameter: { name: 'user' } }] },
    { name: 'given a ring hash without a key should set no hash policy (as istiod)', dr: '  trafficPolicy: { loadBalancer: { consistentHash: { ringHash: { minimumRingSize: 64 } } } }', want: undefined },
    { name: 'given useSourceIp false should name the source address with sourceIp false (as istiod)', dr: '  trafficPolicy: { loadBalancer: { consistentHash: { useSourceIp: false } } }', want: [{ connectionProperties: { sourceIp: false } }] },
    { name: 'given a cookie ttl of 0s should send ttl 0 (Envoy: a session cookie)', dr: '  trafficPolicy: { loadBalancer: { consistentHash: { httpCookie: { name: sticky, ttl: 0s } } } }', want: [{ cookie: { name: 'sticky', ttl: { seconds: 0, nanos: 0 } } }] },
    { name: 'given a simple load balancer should set no hash policy', dr: '  trafficPolicy: { loadBalancer: { simple: ROUND_ROBIN } }', want: undefined },
    { name: 'given no DestinationRule should set no hash policy', dr: undefined, want: undefined },
    {
      name: 'given a port-level hash for the port should take it over the rule\'s',
      dr: '  trafficPolicy:\n    loadBalancer: { consistentHash: { httpHeaderName: x-user } }\n    portLevelSettings: [{ port: { number: 8080 }, loadBalancer: { consistentHash: { httpCookie: { name: port-cookie } } } }]',
      want: [{ cookie: { name: 'port-cookie' } }],
    },
    {
      name: 'given a port-level hash for another port should keep the rule\'s',
      dr: '  trafficPolicy:\n    loadBalancer: { consistentHash: { httpHeaderName: x-user } }\n    portLevelSettings: [{ port: { number: 8080 }, loadBalancer: { consistentHash: { httpCookie: { name: port-cookie } } } }]',
      port: 9090,
      want: [{ header: { headerName: 'x-user' } }],
    },
    {
      name: 'given a port-level simple load balancer for the port should keep the rule\'s hash (as istiod: only a port-level hash overrides)',
      dr: '  trafficPolicy:\n    loadBalancer: { consistentHash: { httpHeaderName: x-user } }\n    portLevelSettings: [{ port: { number: 8080 }, loadBalancer: { simple: LEAST_REQUEST } }]',
      want: [{ header: { headerName: 'x-user' } }],
    },
    { name: 'given only a subset hash should set none on the default route (it reaches the subset-less cluster)', dr: SUBSETS, want: undefined },
  ];
  for (const c of serviceCases) {
    it(`${c.name} on the default route, keeping previous_hosts on retries`, () => {
      const [r, ...rest] = shopRoutes(mesh(c.dr), c.port);
      assert.equal(rest.length, 0);
      assert.equal(r.name, 'default');
      assert.deepEqual(r.route.hashPolicy, c.want);
      assert.deepEqual(predicates(r), [PREVIOUS_HOSTS]);
    });
  }

  const TOP = '  trafficPolicy:\n    loadBalancer: { consistentHash: { httpHeaderName: x-user } }\n    portLevelSettings: [{ port: { number: 8080 }, loadBalancer: { consistentHash: { httpCookie: { name: port-cookie } } } }]\n';
  const routeCases: { name: string; dr: string | undefined; http: string; want: unknown; previousHosts: boolean; retries?: number }[] = [
    { name: 'given one destination should hash on its rule\'s key and retry without previous_hosts', dr: '  trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: x-user } } }', http: '  - route: [{ destination: { host: shop } }]', want: [{ header: { headerName: 'x-user' } }], previousHosts: false },
    { name: 'given one destination without a port should ignore port-level hashes (as istiod)', dr: TOP, http: '  - route: [{ destination: { host: shop } }]', want: [{ header: { headerName: 'x-user' } }], previousHosts: false },
    { name: 'given one destination naming the port should take its port-level hash', dr: TOP, http: '  - route: [{ destination: { host: shop, port: { number: 8080 } } }]', want: [{ cookie: { name: 'port-cookie' } }], previousHosts: false },
    { name: 'given a subset with a hash should take it over the rule\'s and its port-level one', dr: `${TOP}${SUBSETS}`, http: '  - route: [{ destination: { host: shop, subset: v2, port: { number: 8080 } } }]', want: [{ queryParameter: { name: 'session' } }], previousHosts: false },
    { name: 'given a subset port-level hash for the destination port should take it over the subset\'s', dr: `${TOP}${SUBSETS}`, http: '  - route: [{ destination: { host: shop, subset: v3, port: { number: 8080 } } }]', want: [{ header: { headerName: 'x-v3-port' } }], previousHosts: false },
    { name: 'given a subset without a hash should fall back to the rule\'s', dr: `${TOP}${SUBSETS}`, http: '  - route: [{ destination: { host: shop, subset: v1 } }]', want: [{ header: { headerName: 'x-user' } }], previousHosts: false },
    {
      name: 'given weighted destinations should carry each one\'s hash in order and keep previous_hosts (as istiod)',
      dr: `  trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: x-user } } }\n${SUBSETS}`,
      http: '  - route:\n    - { destination: { host: shop, subset: v1 }, weight: 50 }\n    - { destination: { host: shop, subset: v2 }, weight: 50 }\n    - { destination: { host: shop, subset: v3 }, weight: 0 }',
      want: [{ header: { headerName: 'x-user' } }, { queryParameter: { name: 'session' } }],
      previousHosts: true,
    },
    { name: 'given explicit retries should keep the attempts and leave out previous_hosts', dr: '  trafficPolicy: { loadBalancer: { consistentHash: { useSourceIp: true } } }', http: '  - route: [{ destination: { host: shop } }]\n    retries: { attempts: 4, retryOn: 5xx }', want: [{ connectionProperties: { sourceIp: true } }], previousHosts: false, retries: 4 },
    {
      name: 'given retries with retryIgnorePreviousHosts true should keep previous_hosts despite the hash (as istiod)',
      dr: '  trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: x-user } } }',
      http: '  - route: [{ destination: { host: shop } }]\n    retries: { attempts: 3, retryIgnorePreviousHosts: true }',
      want: [{ header: { headerName: 'x-user' } }],
      previousHosts: true,
      retries: 3,
    },
    { name: 'given retries with retryIgnorePreviousHosts false should leave out previous_hosts', dr: undefined, http: '  - route: [{ destination: { host: shop } }]\n    retries: { attempts: 3, retryIgnorePreviousHosts: false }', want: undefined, previousHosts: false, retries: 3 },
    { name: 'given no consistent hash should set no hash policy and keep previous_hosts', dr: '  trafficPolicy: { loadBalancer: { simple: LEAST_REQUEST } }', http: '  - route: [{ destination: { host: shop } }]', want: undefined, previousHosts: true },
    { name: 'given no DestinationRule should set no hash policy and keep previous_hosts', dr: undefined, http: '  - route: [{ destination: { host: shop } }]', want: undefined, previousHosts: true },
  ];
  for (const c of routeCases) {
    it(`${c.name} on the VirtualService route`, () => {
      const [r] = shopRoutes(mesh(c.dr, c.http));
      assert.deepEqual(r.route.hashPolicy, c.want);
      assert.deepEqual(predicates(r), c.previousHosts ? [PREVIOUS_HOSTS] : undefined);
      assert.equal(r.route.retryPolicy.numRetries.value, c.retries ?? 2);
      assert.equal(r.route.retryPolicy.hostSelectionRetryMaxAttempts, 5);
    });
  }

  it('given a route to another host should take that host\'s rule, not the virtual host\'s', () => {
    const yaml = mesh('  trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: x-shop } } }', '  - route: [{ destination: { host: reviews, subset: v2 } }]');
    const [r] = shopRoutes(yaml);
    // NOTE: SIDECAR_MESH's reviews rule gives subset v2 a hash on x-user.
    assert.deepEqual(r.route.hashPolicy, [{ header: { headerName: 'x-user' } }]);
  });
});
