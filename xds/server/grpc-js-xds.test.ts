/**
 * A real @grpc/grpc-js-xds client (proxyless gRPC) resolves `xds:///echo...` through meshd's ADS:
 * LDS (API listener) -> RDS -> CDS -> EDS, then calls a real backend at the endpoint it learned.
 */
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { register as registerXdsResolver } from '@grpc/grpc-js-xds';
import { assertValid, typeUrlOf } from '../protos/index.js';
import { TYPE_URL } from './contracts.js';
import { eventually, FakeGenerator, loadAssignment, startAdsHarness, type AdsHarness, type FakeProxy } from '../testing/index.js';

const TARGET = 'echo.default.svc.cluster.local:8080';
const ROUTE = 'echo-route';
const CLUSTER = 'outbound|8080||echo.default.svc.cluster.local';
const identity = (b: Buffer): Buffer => b;
const ECHO = '/mesh.test.Echo/Say';

function resources(backendPort: number): [string, string, object][] {
  return [
    [
      TYPE_URL.listener,
      TARGET,
      {
        name: TARGET,
        apiListener: {
          apiListener: {
            '@type': typeUrlOf('envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager'),
            statPrefix: 'echo',
            rds: { configSource: { ads: {}, resourceApiVersion: 'V3' }, routeConfigName: ROUTE },
            httpFilters: [{ name: 'envoy.filters.http.router', typedConfig: { '@type': typeUrlOf('envoy.extensions.filters.http.router.v3.Router') } }],
          },
        },
      },
    ],
    [TYPE_URL.route, ROUTE, { name: ROUTE, virtualHosts: [{ name: 'echo', domains: [TARGET], routes: [{ match: { prefix: '' }, route: { cluster: CLUSTER } }] }] }],
    [
      TYPE_URL.cluster,
      CLUSTER,
      { name: CLUSTER, type: 'EDS', edsClusterConfig: { edsConfig: { ads: {}, resourceApiVersion: 'V3' }, serviceName: CLUSTER }, lbPolicy: 'ROUND_ROBIN', connectTimeout: { seconds: 1 } },
    ],
    [TYPE_URL.endpoint, CLUSTER, loadAssignment(CLUSTER, '127.0.0.1', backendPort)],
  ];
}

describe('@grpc/grpc-js-xds client against the ADS server', function () {
  this.timeout(30_000);
  let h: AdsHarness<FakeProxy>;
  let backend: grpc.Server;
  let client: grpc.Client | undefined;

  before(async () => {
    registerXdsResolver();
    backend = new grpc.Server();
    backend.addService(
      { Say: { path: ECHO, requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity } },
      { Say: (call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => cb(null, Buffer.concat([Buffer.from('echo:'), call.request])) },
    );
    const backendPort = await new Promise<number>((resolve, reject) =>
      backend.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    const gen = new FakeGenerator();
    for (const [type, name, obj] of resources(backendPort)) {
      assertValid(type, obj); // every resource passes the Envoy protos' validation rules
      gen.set(type, name, obj);
    }
    h = await startAdsHarness({ generator: gen });
  });
  after(async () => {
    client?.close();
    await h.close();
    backend.forceShutdown();
  });

  it('given LDS, RDS, CDS and EDS from meshd, should resolve the xds target, ACK every type and reach the backend', async () => {
    const bootstrap = {
      xds_servers: [{ server_uri: h.address, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
      node: { id: 'sidecar~127.0.0.1~echo-client-0.default~default.svc.cluster.local', locality: {}, metadata: { GENERATOR: 'grpc', NAMESPACE: 'default' } },
    };
    client = new grpc.Client(`xds:///${TARGET}`, grpc.credentials.createInsecure(), {
      'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
    });
    const reply = await new Promise<Buffer>((resolve, reject) =>
      client!.makeUnaryRequest(ECHO, identity, identity, Buffer.from('hi'), { deadline: Date.now() + 20_000 }, (e, r) => (e ? reject(e) : resolve(r!))),
    );
    assert.equal(reply.toString(), 'echo:hi');
    const conn = await eventually('every type ACKed', () => {
      const c = h.ads.connections()[0];
      const acked = c?.types.filter((t) => t.versionAcked !== '' && t.nonceAcked === t.nonceSent) ?? [];
      return acked.length === 4 ? c : undefined;
    });
    assert.equal(conn.node.proxyless, true);
    assert.deepEqual(conn.types.map((t) => t.typeUrl).sort(), [TYPE_URL.cluster, TYPE_URL.endpoint, TYPE_URL.listener, TYPE_URL.route].sort());
    assert.ok(conn.types.every((t) => t.lastNack === undefined));
  });
});
