import assert from 'node:assert/strict';
import { proxyFromNode } from '../../../core/index.js';
import { configEvent, configsFromYaml, grpcNode, testModel } from '../testing/model-fixtures.js';
import { buildRouteConfiguration } from './route-builder.js';

const SE = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo, namespace: qs }
spec:
  hosts: [echo.qs.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 80, name: grpc }, { number: 81, name: grpc-2 }]
`;

function routes(vsSpec: string, labels: Record<string, string> = {}, port = 80): { name: string; match: Record<string, unknown> }[] | undefined {
  const m = testModel();
  const yaml = `${SE}---\napiVersion: networking.mesh.io/v1\nkind: VirtualService\nmetadata: { name: echo, namespace: qs }\nspec:\n${vsSpec}`;
  m.apply(configsFromYaml(yaml).map((c) => configEvent(c)));
  m.rebuild();
  const proxy = proxyFromNode(grpcNode('qs', { metadata: { GENERATOR: 'grpc', LABELS: labels } }));
  const built = buildRouteConfiguration(m.pushContext, proxy, `outbound|${port}||echo.qs.svc.cluster.local`);
  return (built?.resource['virtualHosts'] as { routes: { name: string; match: Record<string, unknown> }[] }[] | undefined)?.[0]?.routes;
}

const cases: { name: string; spec: string; labels: Record<string, string>; want: string[] }[] = [
  {
    name: 'given a match bound to another port should leave that route out on this port',
    spec: `  hosts: [echo]\n  http:\n  - { name: p81, match: [{ port: 81 }], route: [{ destination: { host: echo } }] }\n  - { name: all, route: [{ destination: { host: echo } }] }\n`,
    labels: {},
    want: ['all'],
  },
  {
    name: 'given sourceLabels the proxy does not carry should leave that route out',
    spec: `  hosts: [echo]\n  http:\n  - { name: canary-clients, match: [{ sourceLabels: { track: canary } }], route: [{ destination: { host: echo } }] }\n  - { name: all, route: [{ destination: { host: echo } }] }\n`,
    labels: { track: 'stable' },
    want: ['all'],
  },
  {
    name: 'given sourceLabels the proxy carries should keep that route first',
    spec: `  hosts: [echo]\n  http:\n  - { name: canary-clients, match: [{ sourceLabels: { track: canary } }], route: [{ destination: { host: echo } }] }\n  - { name: all, route: [{ destination: { host: echo } }] }\n`,
    labels: { track: 'canary' },
    want: ['canary-clients', 'all'],
  },
  {
    name: 'given a VirtualService bound only to a gateway should not route proxyless clients (default route)',
    spec: `  hosts: [echo]\n  gateways: [ingress]\n  http:\n  - { name: gw, route: [{ destination: { host: echo } }] }\n`,
    labels: {},
    want: ['default'],
  },
  {
    name: 'given a VirtualService bound to gateways and mesh should route proxyless clients',
    spec: `  hosts: [echo]\n  gateways: [ingress, mesh]\n  http:\n  - { name: both, route: [{ destination: { host: echo } }] }\n`,
    labels: {},
    want: ['both'],
  },
];

describe('buildRouteConfiguration', () => {
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(routes(c.spec, c.labels)?.map((r) => r.name), c.want));
  }

  it('given a method match should match the :method header', () => {
    const r = routes(`  hosts: [echo]\n  http:\n  - { name: posts, match: [{ method: { exact: POST } }], route: [{ destination: { host: echo } }] }\n`);
    assert.deepEqual(r?.[0]?.match, { prefix: '/', headers: [{ name: ':method', stringMatch: { exact: 'POST' } }] });
  });

  it('given weights that do not sum to 100 should send them as relative weights of weighted clusters', () => {
    const m = testModel();
    const yaml = `${SE}---\napiVersion: networking.mesh.io/v1\nkind: VirtualService\nmetadata: { name: echo, namespace: qs }\nspec:\n  hosts: [echo]\n  http:\n  - route:\n    - { destination: { host: echo, subset: v1 }, weight: 30 }\n    - { destination: { host: echo, subset: v2 }, weight: 80 }\n`;
    m.apply(configsFromYaml(yaml).map((c) => configEvent(c)));
    m.rebuild();
    const proxy = proxyFromNode(grpcNode('qs', { metadata: { GENERATOR: 'grpc' } }));
    const built = buildRouteConfiguration(m.pushContext, proxy, 'outbound|80||echo.qs.svc.cluster.local');
    const route = (built?.resource['virtualHosts'] as { routes: { route: { weightedClusters?: unknown } }[] }[])[0]!.routes[0]!;
    assert.deepEqual(route.route.weightedClusters, {
      clusters: [
        { name: 'outbound|80|v1|echo.qs.svc.cluster.local', weight: { value: 30 } },
        { name: 'outbound|80|v2|echo.qs.svc.cluster.local', weight: { value: 80 } },
      ],
    });
  });
});
