/**
 * A dataplane sidecar over a real ADS stream: meshd's assembly (MeshDiscovery on 127.0.0.1:0) serves a
 * sidecar node (no GENERATOR metadata) LDS and CDS, then the RDS and EDS names they reference, as Envoy
 * asks for them; what arrives must pass protoc-gen-validate and be consistent, and a config change must
 * reach the proxy.
 */
import assert from 'node:assert/strict';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { validate } from '../../protos/validate.js';
import { TYPE_URL } from '../../server/contracts.js';
import { AdsClient, type SotwResponse } from '../../testing/ads-client.js';
import { MeshHarness } from '../testing/mesh-harness.js';
import { simulateRequest } from '../../simulator/request-simulator.js';
import { checkConsistency } from './consistency-checker.js';
import { ENVOY_MESSAGE_BY_TYPE_URL } from './sidecar-names.js';
import { loadEnv } from '../../../core/index.js';
import { generatorOptionsFromEnv } from '../../discovery/mesh-discovery.js';
import { edsNamesOf, HEADLESS_SERVICES, rdsNamesOf, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const MESSAGE = ENVOY_MESSAGE_BY_TYPE_URL;

/** Decodes a response's resources, checking each against protoc-gen-validate. */
function resourcesOf(r: SotwResponse | undefined): Record<string, unknown>[] {
  if (!r) return [];
  const typeName = MESSAGE[r.typeUrl]!;
  return r.resources.map((x) => {
    assert.deepEqual(validate(typeName, x.body), [], `${r.typeUrl} ${x.name} passes protoc-gen-validate`);
    return decode(typeName, x.body);
  });
}

const REVIEWS = 'reviews.default.svc.cluster.local';

describe('a dataplane sidecar over a real ADS stream', function () {
  this.timeout(60_000);
  let h: MeshHarness;
  let client: AdsClient;

  before(() => protoRoot());
  beforeEach(async () => {
    h = await MeshHarness.start();
    h.apply(SIDECAR_MESH);
    client = new AdsClient({
      address: h.xdsAddress,
      node: { id: 'sidecar~10.0.0.1~productpage-1.default~default.svc.cluster.local', metadata: { NAMESPACE: 'default', LABELS: { app: 'productpage' } } },
      autoAck: true,
    });
  });
  afterEach(async () => {
    client.close();
    await h.close();
  });

  /** Subscribes like Envoy: LDS and CDS wildcard, then the RDS and EDS names they reference; returns the consistent set. */
  async function converge(want: (clusters: Record<string, unknown>[]) => boolean): Promise<{ listeners: Record<string, unknown>[]; routes: Record<string, unknown>[]; clusters: Record<string, unknown>[]; endpoints: Record<string, unknown>[] }> {
    client.subscribe(TYPE_URL.cluster);
    client.subscribe(TYPE_URL.listener);
    const clusters = await client.waitFor('CDS with the mesh', () => {
      const c = resourcesOf(client.latest(TYPE_URL.cluster));
      return c.length > 0 && want(c) ? c : undefined;
    });
    const listeners = await client.waitFor('LDS', () => {
      const l = resourcesOf(client.latest(TYPE_URL.listener));
      return l.some((x) => x['name'] === '0.0.0.0_9080') ? l : undefined;
    });
    const rds = rdsNamesOf(listeners);
    const eds = edsNamesOf(clusters);
    client.subscribe(TYPE_URL.route, rds);
    client.subscribe(TYPE_URL.endpoint, eds);
    const routes = await client.waitFor('RDS', () => {
      const r = resourcesOf(client.latest(TYPE_URL.route));
      return r.length === rds.length ? r : undefined;
    });
    const endpoints = await client.waitFor('EDS', () => {
      const e = resourcesOf(client.latest(TYPE_URL.endpoint));
      return e.length === eds.length ? e : undefined;
    });
    return { listeners, routes, clusters, endpoints };
  }

  it('given a mesh with a weighted VirtualService, subsets with MESH_MUTUAL and STRICT mTLS should send a valid, consistent LDS/RDS/CDS/EDS set', async () => {
    const got = await converge((c) => c.some((x) => x['name'] === `outbound|9080|v1|${REVIEWS}`));
    assert.deepEqual(checkConsistency(got), []);
    assert.deepEqual(got.listeners.map((l) => l['name']).sort(), ['0.0.0.0_443', '0.0.0.0_9080', '10.96.0.30_5432', 'virtualInbound', 'virtualOutbound']);
    const names = got.clusters.map((c) => c['name']);
    for (const n of ['PassthroughCluster', 'BlackHoleCluster', 'inbound|9080||', `outbound|9080|v1|${REVIEWS}`, `outbound|9080|v2|${REVIEWS}`]) assert.ok(names.includes(n), `CDS has ${n}`);
    const v1 = got.clusters.find((c) => c['name'] === `outbound|9080|v1|${REVIEWS}`) as { transportSocket: { typedConfig: { sni: string } } };
    assert.equal(v1.transportSocket.typedConfig.sni, `outbound_.9080_.v1_.${REVIEWS}`);
    const rc = got.routes[0] as { name: string; virtualHosts: { name: string; routes: { route?: { weightedClusters?: { clusters: { name: string; weight: { value: number } }[] } } }[] }[] };
    assert.equal(rc.name, '9080');
    const split = rc.virtualHosts.find((v) => v.name === `${REVIEWS}:9080`)!.routes[1]!.route!.weightedClusters!.clusters;
    assert.deepEqual(split.map((c) => [c.name, c.weight.value]), [[`outbound|9080|v1|${REVIEWS}`, 80], [`outbound|9080|v2|${REVIEWS}`, 20]]);
    const inbound = got.listeners.find((l) => l['name'] === 'virtualInbound') as { filterChains: { name: string }[] };
    assert.deepEqual(inbound.filterChains.map((c) => c.name), ['inbound|9080||-mtls', 'virtualInbound-mtls'], 'STRICT: mTLS chains only');
    // NOTE: the walk runs on what the proxy received (decoded), not on the builders' objects.
    const walk = simulateRequest(got, { address: '10.96.0.10', port: 9080, host: 'reviews', path: '/reviews/7', headers: { 'end-user': 'jason' } });
    assert.deepEqual([walk.outcome, walk.clusters?.map((c) => c.endpoints)], ['routed', [['127.0.0.22:9080']]]);
  });

  it('given a new endpoint for a subset should push it to the sidecar EDS', async () => {
    await converge((c) => c.some((x) => x['name'] === `outbound|9080|v1|${REVIEWS}`));
    h.apply(`apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: reviews-v1b, namespace: default }
spec: { address: 127.0.0.23, labels: { app: reviews, version: v1 }, locality: r1/z1, serviceAccount: reviews }
`);
    await client.waitFor('EDS with the new v1 endpoint', () => {
      const v1 = resourcesOf(client.latest(TYPE_URL.endpoint)).find((e) => e['clusterName'] === `outbound|9080|v1|${REVIEWS}`) as
        | { endpoints: { lbEndpoints: { endpoint: { address: { socketAddress: { address: string } } } }[] }[] }
        | undefined;
      const addrs = v1?.endpoints.flatMap((l) => l.lbEndpoints.map((e) => e.endpoint.address.socketAddress.address)) ?? [];
      return addrs.includes('127.0.0.23') ? addrs : undefined;
    });
  });
});

describe('a dataplane sidecar over a real ADS stream, by PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES', function () {
  this.timeout(60_000);
  before(() => protoRoot());
  const CASSANDRA = 'outbound|9042||cassandra.default.svc.cluster.local';
  const cases = [
    { value: undefined, type: 'ORIGINAL_DST', eds: false, endpoints: ['10.1.0.5:9042'] },
    { value: 'true', type: 'EDS', eds: true, endpoints: ['10.1.0.5:9042', '10.1.0.6:9042'] },
  ] as const;
  for (const c of cases) {
    it(`given the variable ${c.value ?? 'unset'} should serve the headless orchestrator Service's cluster as ${c.type}${c.eds ? ' with its pods over EDS' : ''} and send a connection to a pod ${c.eds ? 'to any pod' : 'to that pod only'}`, async () => {
      const env = loadEnv('pilot-discovery', c.value === undefined ? {} : { PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES: c.value });
      const h = await MeshHarness.start({ edsForHeadless: generatorOptionsFromEnv(env).edsForHeadless });
      const client = new AdsClient({
        address: h.xdsAddress,
        node: { id: 'sidecar~10.0.0.1~productpage-1.default~default.svc.cluster.local', metadata: { NAMESPACE: 'default', LABELS: { app: 'productpage' } } },
        autoAck: true,
      });
      try {
        h.apply(`${SIDECAR_MESH}\n---\n${HEADLESS_SERVICES}`);
        client.subscribe(TYPE_URL.cluster);
        client.subscribe(TYPE_URL.listener);
        const clusters = await client.waitFor('CDS with the headless service', () => {
          const got = resourcesOf(client.latest(TYPE_URL.cluster));
          return got.some((x) => x['name'] === CASSANDRA) ? got : undefined;
        });
        assert.equal(clusters.find((x) => x['name'] === CASSANDRA)!['type'], c.type);
        // NOTE: PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS defaults on: a listener per pod of the headless Service.
        const listeners = await client.waitFor('LDS', () => {
          const l = resourcesOf(client.latest(TYPE_URL.listener));
          return l.some((x) => x['name'] === '10.1.0.5_9042') ? l : undefined;
        });
        const eds = edsNamesOf(clusters);
        assert.equal(eds.includes(CASSANDRA), c.eds);
        client.subscribe(TYPE_URL.endpoint, eds);
        const endpoints = await client.waitFor('EDS', () => {
          const e = resourcesOf(client.latest(TYPE_URL.endpoint));
          return e.length === eds.length ? e : undefined;
        });
        const routes: Record<string, unknown>[] = [];
        const rds = rdsNamesOf(listeners);
        if (rds.length > 0) {
          client.subscribe(TYPE_URL.route, rds);
          routes.push(...(await client.waitFor('RDS', () => {
            const r = resourcesOf(client.latest(TYPE_URL.route));
            return r.length === rds.length ? r : undefined;
          })));
        }
        const got = { listeners, routes, clusters, endpoints };
        assert.deepEqual(checkConsistency(got), []);
        const walk = simulateRequest(got, { protocol: 'tcp', address: '10.1.0.5', port: 9042 });
        assert.deepEqual([walk.outcome, walk.clusters?.map((x) => [x.name, x.endpoints])], ['routed', [[CASSANDRA, c.endpoints]]]);
      } finally {
        client.close();
        await h.close();
      }
    });
  }
});
