/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { encode } from '../../protos/codec.js';
import { validate } from '../../protos/validate.js';
import { simulateRequest } from '../../simulator/request-simulator.js';
import { checkConsistency } from './consistency-checker.js';
import { ENVOY } from './sidecar-names.js';
import { allSidecarResources, sidecarAt, sidecarModel, SIDECAR_MESH } from './testing/sidecar-mesh.js';

// A Redis service (with a DestinationRule asking for ROUND_ROBIN and a weighted VirtualService tcp route),
// a Mongo service and a MySQL service, each with a VIP and one endpoint.
const MESH = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: cache, namespace: data }
spec:
  hosts: [cache.data.svc.cluster.local]
  addresses: [10.96.0.40]
  location: MESH_INTERNAL
  ports: [{ number: 6379, name: redis, protocol: REDIS }]
  resolution: STATIC
  endpoints: [{ address: 127.0.0.41, labels: { version: a } }]
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: cache, namespace: data }
spec:
  host: cache.data.svc.cluster.local
  trafficPolicy: { loadBalancer: { simple: ROUND_ROBIN } }
  subsets: [{ name: a, labels: { version: a } }, { name: b, labels: { version: a } }]
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: cache, namespace: data }
spec:
  hosts: [cache.data.svc.cluster.local]
  tcp:
  - route:
    - { destination: { host: cache.data.svc.cluster.local, subset: a }, weight: 70 }
    - { destination: { host: cache.data.svc.cluster.local, subset: b }, weight: 30 }
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: docs, namespace: data }
spec:
  hosts: [docs.data.svc.cluster.local]
  addresses: [10.96.0.50]
  location: MESH_INTERNAL
  ports: [{ number: 27017, name: mongo, protocol: MONGO }]
  resolution: STATIC
  endpoints: [{ address: 127.0.0.51 }]
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: sql, namespace: data }
spec:
  hosts: [sql.data.svc.cluster.local]
  addresses: [10.96.0.60]
  location: MESH_INTERNAL
  ports: [{ number: 3306, name: mysql, protocol: MYSQL }]
  resolution: STATIC
  endpoints: [{ address: 127.0.0.61 }]
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: ppdata, namespace: default }
spec:
  hosts: [ppdata.default.svc.cluster.local]
  addresses: [10.96.0.70]
  location: MESH_INTERNAL
  ports: [{ number: 27018, name: mongo, protocol: MONGO }, { number: 6380, name: redis, protocol: REDIS }]
  resolution: STATIC
  workloadSelector: { labels: { app: productpage } }
`;

type Opts = { redisFilter?: boolean; mongoFilter?: boolean };

function config(opts: Opts): ReturnType<typeof allSidecarResources> {
  const { proxy, snap } = sidecarAt(sidecarModel(MESH));
  return allSidecarResources(proxy, snap, opts);
}

const filtersOf = (cfg: ReturnType<typeof config>, listener: string): any[] => (cfg.listeners.find((l) => l['name'] === listener) as any).filterChains[0].filters;
const clusterOf = (cfg: ReturnType<typeof config>, name: string): any => cfg.clusters.find((c) => c['name'] === name);
const REDIS_A = 'outbound|6379|a|cache.data.svc.cluster.local';

describe('PILOT_ENABLE_REDIS_FILTER and PILOT_ENABLE_MONGO_FILTER on sidecar TCP chains (istiod buildNetworkFiltersStack)', () => {
  const cases: { name: string; listener: string; want: [Opts, string[]][] }[] = [
    {
      name: 'given the Redis filter off should proxy a REDIS port with tcp_proxy (istiod default), on should end its chain with the Redis proxy alone',
      listener: '10.96.0.40_6379',
      want: [[{}, ['envoy.filters.network.tcp_proxy']], [{ redisFilter: true }, ['envoy.filters.network.redis_proxy']]],
    },
    {
      name: 'given the Mongo filter unset should put the Mongo proxy before tcp_proxy (istiod default true), off should leave tcp_proxy alone',
      listener: '10.96.0.50_27017',
      want: [[{}, ['envoy.filters.network.mongo_proxy', 'envoy.filters.network.tcp_proxy']], [{ mongoFilter: false }, ['envoy.filters.network.tcp_proxy']]],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(c.want.map(([o]) => filtersOf(config(o), c.listener).map((f) => f.name)), c.want.map(([, w]) => w)));

  it('given the Redis filter on should route everything to the first weighted cluster with istiod\'s settings, and stay consistent, routable and valid', function () {
    this.timeout(60_000);
    const cfg = config({ redisFilter: true });
    for (const l of cfg.listeners) assert.deepEqual(validate(ENVOY.listener, encode(ENVOY.listener, l)), [], `listener ${String(l['name'])}`);
    for (const c of cfg.clusters) assert.deepEqual(validate(ENVOY.cluster, encode(ENVOY.cluster, c)), [], `cluster ${String(c['name'])}`);
    const tc = filtersOf(cfg, '10.96.0.40_6379')[0].typedConfig;
    assert.deepEqual(
      { statPrefix: tc.statPrefix, latencyInMicros: tc.latencyInMicros, settings: tc.settings, prefixRoutes: tc.prefixRoutes },
      { statPrefix: 'outbound|6379||cache.data.svc.cluster.local', latencyInMicros: true, settings: { opTimeout: { seconds: 5, nanos: 0 } }, prefixRoutes: { catchAllRoute: { cluster: REDIS_A } } },
    );
    assert.deepEqual(checkConsistency(cfg), []);
    const walk = simulateRequest(cfg, { protocol: 'tcp', address: '10.96.0.40', port: 6379 });
    assert.deepEqual([walk.outcome, (walk.clusters ?? []).map((x) => x.name)], ['routed', [REDIS_A]]);
    assert.deepEqual(filtersOf(cfg, '10.96.0.60_3306').map((f) => f.name), ['envoy.filters.network.tcp_proxy'], 'MYSQL: tcp_proxy alone (the MySQL proxy is refused at start)');
  });

  it('given the Mongo filter should give it the stat prefix of the tcp_proxy it precedes', () => {
    const [mongo, tcp] = filtersOf(config({}), '10.96.0.50_27017');
    assert.equal(mongo.typedConfig['@type'], 'type.googleapis.com/envoy.extensions.filters.network.mongo_proxy.v3.MongoProxy');
    assert.equal(mongo.typedConfig.statPrefix, tcp.typedConfig.statPrefix);
  });

  it('given the Redis filter should balance a REDIS port\'s clusters with MAGLEV over the DestinationRule\'s ROUND_ROBIN (as istiod), and keep it off', () => {
    const policies = (o: Opts): string[] => {
      const cfg = config(o);
      return ['outbound|6379||cache.data.svc.cluster.local', REDIS_A, 'outbound|27017||docs.data.svc.cluster.local'].map((n) => String(clusterOf(cfg, n).lbPolicy));
    };
    assert.deepEqual(policies({ redisFilter: true }), ['MAGLEV', 'MAGLEV', 'LEAST_REQUEST']);
    assert.deepEqual(policies({}), ['ROUND_ROBIN', 'ROUND_ROBIN', 'LEAST_REQUEST']);
  });

  it('given the proxy\'s own MONGO and REDIS ports should put the Mongo / Redis proxy on their inbound chains with the filters on, and tcp_proxy alone off (as istiod)', () => {
    const inbound = (o: Opts): Record<string, unknown> => {
      const cfg = config(o);
      assert.deepEqual(checkConsistency(cfg), []);
      const chains = (cfg.listeners.find((l) => l['name'] === 'virtualInbound') as any).filterChains as any[];
      const at = (port: number): any[] => chains.find((c) => c.filterChainMatch?.destinationPort?.value === port).filters;
      return { mongo: at(27018).map((f) => f.name), redis: at(6380).map((f) => f.name), route: at(6380)[0].typedConfig.prefixRoutes?.catchAllRoute };
    };
    assert.deepEqual(inbound({ redisFilter: true }), { mongo: ['envoy.filters.network.mongo_proxy', 'envoy.filters.network.tcp_proxy'], redis: ['envoy.filters.network.redis_proxy'], route: { cluster: 'inbound|6380||' } });
    assert.deepEqual(inbound({ mongoFilter: false }), { mongo: ['envoy.filters.network.tcp_proxy'], redis: ['envoy.filters.network.tcp_proxy'], route: undefined });
  });
});
