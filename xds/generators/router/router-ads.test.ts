/**
 * A router (gateway) proxy over a real ADS stream: meshd's assembly (MeshDiscovery on 127.0.0.1:0) serves
 * a `router~` node LDS and CDS, then the RDS and EDS names they reference; what arrives must pass
 * protoc-gen-validate, be consistent and route where Istio would, and a Gateway edit must reach it.
 */
import assert from 'node:assert/strict';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { validate } from '../../protos/validate.js';
import { TYPE_URL } from '../../server/contracts.js';
import { simulateRequest } from '../../simulator/request-simulator.js';
import { AdsClient, type SotwResponse } from '../../testing/ads-client.js';
import { checkConsistency } from '../sidecar/consistency-checker.js';
import { ENVOY_MESSAGE_BY_TYPE_URL } from '../sidecar/sidecar-names.js';
import { edsNamesOf, rdsNamesOf } from '../sidecar/testing/sidecar-mesh.js';
import { MeshHarness } from '../testing/mesh-harness.js';
import { ROUTER_MESH, routerNode } from './testing/router-mesh.js';

const MESSAGE = ENVOY_MESSAGE_BY_TYPE_URL;

function resourcesOf(r: SotwResponse | undefined): Record<string, unknown>[] {
  if (!r) return [];
  const typeName = MESSAGE[r.typeUrl]!;
  return r.resources.map((x) => {
    assert.deepEqual(validate(typeName, x.body), [], `${r.typeUrl} ${x.name} passes protoc-gen-validate`);
    return decode(typeName, x.body);
  });
}

describe('a router (gateway) over a real ADS stream', function () {
  this.timeout(60_000);
  let h: MeshHarness;
  let client: AdsClient;

  before(() => protoRoot());
  beforeEach(async () => {
    h = await MeshHarness.start();
    h.apply(ROUTER_MESH);
    const node = routerNode();
    client = new AdsClient({ address: h.xdsAddress, node: { id: node.id, metadata: node.metadata as Record<string, unknown> }, autoAck: true });
  });
  afterEach(async () => {
    client.close();
    await h.close();
  });

  it('given Gateways selecting it should get valid, consistent listeners, routes, clusters and endpoints that route by the bound VirtualService', async () => {
    client.subscribe(TYPE_URL.cluster);
    client.subscribe(TYPE_URL.listener);
    const clusters = await client.waitFor('CDS', () => {
      const c = resourcesOf(client.latest(TYPE_URL.cluster));
      return c.some((x) => x['name'] === 'BlackHoleCluster') ? c : undefined;
    });
    const listeners = await client.waitFor('LDS', () => {
      const l = resourcesOf(client.latest(TYPE_URL.listener));
      return l.length > 0 ? l : undefined;
    });
    assert.deepEqual(listeners.map((l) => l['name']).sort(), ['0.0.0.0_15443', '0.0.0.0_5432', '0.0.0.0_8080', '0.0.0.0_8443']);
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
    const got = { listeners, routes, clusters, endpoints };
    assert.deepEqual(checkConsistency(got), []);
    const walk = simulateRequest(got, { address: '10.0.9.9', port: 8080, host: 'shop.example.com', path: '/reviews/7' });
    assert.deepEqual([walk.outcome, walk.route, walk.clusters?.map((c) => c.endpoints)], ['routed', 'reviews', [['127.0.0.22:9080']]]);

    // A Gateway edit (a new HTTP server port) must push the router a new listener.
    h.apply(ROUTER_MESH.replace('  - port: { number: 5432, name: tcp, protocol: TCP }', '  - port: { number: 9000, name: http-alt, protocol: HTTP }\n    hosts: [default/shop.example.com]\n  - port: { number: 5432, name: tcp, protocol: TCP }'));
    await client.waitFor('LDS with the new port', () => {
      const l = resourcesOf(client.latest(TYPE_URL.listener));
      return l.some((x) => x['name'] === '0.0.0.0_9000') ? l : undefined;
    });
  });
});
