import assert from 'node:assert/strict';
import { anyOf, anyToJson, assertValid, decode, encode, ProtoValidationError, toJson, typeUrlOf, UnknownTypeError, validate } from './index.js';

const CLUSTER = 'envoy.config.cluster.v3.Cluster';
const LISTENER = 'envoy.config.listener.v3.Listener';
const HCM = 'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

const goodCluster = {
  name: 'outbound|8080||reviews.default.svc.cluster.local',
  type: 'EDS',
  edsClusterConfig: { edsConfig: { ads: {}, resourceApiVersion: 'V3' }, serviceName: 'outbound|8080||reviews.default.svc.cluster.local' },
  connectTimeout: { seconds: 10 },
  lbPolicy: 'LEAST_REQUEST',
  circuitBreakers: { thresholds: [{ maxConnections: { value: 4294967295 }, maxRetries: { value: 4294967295 } }] },
  outlierDetection: { consecutive_5xx: { value: 5 }, interval: { seconds: 10 }, baseEjectionTime: { seconds: 30 }, maxEjectionPercent: { value: 100 } },
};

const goodListener = {
  name: '0.0.0.0_8080',
  address: { socketAddress: { address: '0.0.0.0', portValue: 8080 } },
  filterChains: [
    {
      filters: [
        {
          name: 'envoy.filters.network.http_connection_manager',
          typedConfig: {
            '@type': typeUrlOf(HCM),
            statPrefix: 'outbound_0.0.0.0_8080',
            rds: { configSource: { ads: {}, resourceApiVersion: 'V3' }, routeConfigName: '8080' },
            httpFilters: [{ name: 'envoy.filters.http.router', typedConfig: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' } }],
          },
        },
      ],
    },
  ],
};

describe('xds/protos', () => {
  it('given a plain Cluster, should encode and decode it back to the same bytes', () => {
    const b = encode(CLUSTER, goodCluster);
    assert.ok(b.length > 100);
    const back = decode(CLUSTER, b);
    assert.equal(back['lbPolicy'], 'LEAST_REQUEST');
    assert.deepEqual(Buffer.from(encode(CLUSTER, back)), Buffer.from(b));
  });

  it('given a type URL instead of a name, should accept it; an unknown type should throw UnknownTypeError', () => {
    assert.deepEqual(Buffer.from(encode(typeUrlOf(CLUSTER), goodCluster)), Buffer.from(encode(CLUSTER, goodCluster)));
    assert.throws(() => encode('envoy.config.cluster.v3.Clusterz', {}), UnknownTypeError);
  });

  it('given anyOf with pre-encoded bytes, should embed them exactly as an expanded Any would be', () => {
    const hcm = goodListener.filterChains[0]!.filters[0]!.typedConfig;
    const { '@type': _t, ...fields } = hcm;
    const viaAny = structuredClone(goodListener) as { filterChains: { filters: { typedConfig: unknown }[] }[] };
    viaAny.filterChains[0]!.filters[0]!.typedConfig = anyOf(typeUrlOf(HCM), encode(HCM, fields));
    assert.deepEqual(Buffer.from(encode(LISTENER, viaAny)), Buffer.from(encode(LISTENER, goodListener)));
  });

  it('given encoded bytes, should print Envoy JSON: snake_case, durations as strings, wrappers bare, Any expanded', () => {
    const json = toJson(LISTENER, encode(LISTENER, goodListener)) as Record<string, unknown>;
    const chain = (json['filter_chains'] as { filters: { typed_config: Record<string, unknown> }[] }[])[0]!;
    const tc = chain.filters[0]!.typed_config;
    assert.equal(tc['@type'], typeUrlOf(HCM));
    assert.equal(tc['stat_prefix'], 'outbound_0.0.0.0_8080');
    const c = toJson(CLUSTER, encode(CLUSTER, goodCluster)) as Record<string, unknown>;
    assert.equal(c['connect_timeout'], '10s');
    assert.equal(c['lb_policy'], 'LEAST_REQUEST');
    assert.deepEqual((c['outlier_detection'] as Record<string, unknown>)['consecutive_5xx'], 5);
    assert.equal((c['circuit_breakers'] as { thresholds: Record<string, unknown>[] }).thresholds[0]!['max_connections'], 4294967295);
    const camel = toJson(CLUSTER, encode(CLUSTER, goodCluster), { fieldNames: 'json' }) as Record<string, unknown>;
    assert.equal(camel['connectTimeout'], '10s');
    assert.deepEqual(anyToJson('type.googleapis.com/google.protobuf.Duration', encode('google.protobuf.Duration', { seconds: 1, nanos: 500_000_000 })), {
      '@type': 'type.googleapis.com/google.protobuf.Duration',
      value: '1.500s',
    });
  });

  it('given valid Cluster and Listener objects (Any contents included), should find nothing', () => {
    assert.deepEqual(validate(CLUSTER, goodCluster), []);
    assert.deepEqual(validate(LISTENER, goodListener), []);
    assert.deepEqual(validate(LISTENER, encode(LISTENER, goodListener)), []);
  });

  const bad: { name: string; type: string; value: object; path: string; message: RegExp }[] = [
    { name: 'an empty cluster name (string min_len)', type: CLUSTER, value: { ...goodCluster, name: '' }, path: 'name', message: /at least 1 characters/ },
    { name: 'a zero connect timeout (duration gt)', type: CLUSTER, value: { ...goodCluster, connectTimeout: { seconds: 0 } }, path: 'connectTimeout', message: /greater than 0s/ },
    { name: 'an undefined enum number (defined_only)', type: CLUSTER, value: { ...goodCluster, lbPolicy: 99 }, path: 'lbPolicy', message: /not a defined enum value/ },
    { name: 'an unknown enum name', type: CLUSTER, value: { ...goodCluster, type: 'EDSS' }, path: 'type', message: /not a value of enum DiscoveryType/ },
    { name: 'a snake_case key', type: CLUSTER, value: { ...goodCluster, lb_policy: 'RANDOM' }, path: 'lb_policy', message: /use camelCase "lbPolicy"/ },
    { name: 'a port over 65535 (uint32 lte)', type: LISTENER, value: { ...goodListener, address: { socketAddress: { address: '0.0.0.0', portValue: 70000 } } }, path: 'address.socketAddress.portValue', message: /at most 65535/ },
    { name: 'a socket address without a port (oneof required)', type: LISTENER, value: { ...goodListener, address: { socketAddress: { address: '0.0.0.0' } } }, path: 'address.socketAddress.portSpecifier', message: /exactly one of \(portValue, namedPort\)/ },
    {
      name: 'an HCM without stat_prefix inside the Any',
      type: LISTENER,
      value: { ...goodListener, filterChains: [{ filters: [{ name: 'hcm', typedConfig: { ...goodListener.filterChains[0]!.filters[0]!.typedConfig, statPrefix: '' } }] }] },
      path: 'filterChains[0].filters[0].typedConfig<HttpConnectionManager>.statPrefix',
      message: /at least 1 characters/,
    },
    { name: 'an unknown Any type', type: LISTENER, value: { ...goodListener, filterChains: [{ filters: [{ name: 'x', typedConfig: { '@type': 'type.googleapis.com/no.such.Type' } }] }] }, path: 'filterChains[0].filters[0].typedConfig.@type', message: /unknown Any type/ },
    { name: 'two members of a oneof', type: CLUSTER, value: { ...goodCluster, clusterType: { name: 'envoy.clusters.aggregate' } }, path: 'clusterDiscoveryType', message: /only one of/ },
    {
      name: 'a route config with an empty virtual host domain list (repeated min_items)',
      type: 'envoy.config.route.v3.RouteConfiguration',
      value: { name: 'r', virtualHosts: [{ name: 'vh', domains: [] }] },
      path: 'virtualHosts[0].domains',
      message: /at least 1 item/,
    },
    {
      name: 'a header name with a line break (well_known_regex, strict: false)',
      type: 'envoy.config.core.v3.HeaderValueOption',
      value: { header: { key: 'bad\nheader', value: 'v' } },
      path: 'header.key',
      message: /not a valid HTTP header name/,
    },
    {
      name: 'an HCM with neither rds nor route_config (oneof required inside an Any)',
      type: 'envoy.config.listener.v3.Filter',
      value: { name: 'x', typedConfig: { '@type': typeUrlOf(HCM), statPrefix: 's' } },
      path: 'typedConfig<HttpConnectionManager>.routeSpecifier',
      message: /exactly one of \(rds, routeConfig, scopedRoutes\)/,
    },
    { name: 'a missing required message (message required)', type: 'envoy.config.route.v3.Route', value: { route: { cluster: 'c' } }, path: 'match', message: /is required/ },
  ];
  for (const c of bad) {
    it(`given ${c.name}, should report it at ${c.path}`, () => {
      const issues = validate(c.type, c.value);
      const hit = issues.find((i) => i.path === c.path);
      assert.ok(hit, `no issue at ${c.path}; got ${JSON.stringify(issues)}`);
      assert.match(hit.message, c.message);
    });
  }

  it('given an invalid object, assertValid should throw a ProtoValidationError listing the path', () => {
    assert.throws(
      () => assertValid(CLUSTER, { ...goodCluster, name: '' }),
      (e: unknown) => e instanceof ProtoValidationError && /envoy.config.cluster.v3.Cluster is invalid: name: value length/.test(e.message),
    );
  });
});
