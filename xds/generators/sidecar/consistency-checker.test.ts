import assert from 'node:assert/strict';
import { checkConsistency, type ProxyConfig } from './consistency-checker.js';
import { allSidecarResources, sidecarAt, sidecarModel } from './testing/sidecar-mesh.js';

const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const TCP = 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy';
const sds = { apiConfigSource: {} };

/** A small consistent config: listener -> RDS r -> cluster c (EDS) -> endpoints; tcp listener -> c. */
function base(): ProxyConfig {
  return {
    listeners: [
      { name: 'http', filterChains: [{ name: 'fc', filters: [{ name: 'hcm', typedConfig: { '@type': HCM, rds: { routeConfigName: 'r' } } }] }] },
      { name: 'tcp', filterChains: [{ name: 'fc', filters: [{ name: 'tcp', typedConfig: { '@type': TCP, cluster: 'c' } }] }] },
    ],
    routes: [{ name: 'r', virtualHosts: [{ name: 'vh', domains: ['a'], routes: [{ name: 'x', route: { cluster: 'c' } }] }] }],
    clusters: [{ name: 'c', type: 'EDS', edsClusterConfig: { serviceName: 'c' }, transportSocket: { typedConfig: { commonTlsContext: { tlsCertificateSdsSecretConfigs: [{ name: 'default', sdsConfig: sds }] } } } }],
    endpoints: [{ clusterName: 'c', endpoints: [] }],
  };
}

describe('checkConsistency', () => {
  const cases: { name: string; change: (c: ProxyConfig) => ProxyConfig; want: string[] }[] = [
    { name: 'given a consistent config should report nothing', change: (c) => c, want: [] },
    { name: 'given an HCM naming a missing route configuration should report it', change: (c) => ({ ...c, routes: [] }), want: ['listener http filter chain fc: route configuration "r" is not in RDS'] },
    {
      name: 'given a route and a tcp_proxy naming a missing cluster should report both, and the orphan load assignment',
      change: (c) => ({ ...c, clusters: [] }),
      want: ['listener tcp filter chain fc: cluster "c" is not in CDS', 'route configuration r virtual host vh route x: cluster "c" is not in CDS', 'load assignment c: no EDS cluster uses it'],
    },
    { name: 'given an EDS cluster without a load assignment should report it', change: (c) => ({ ...c, endpoints: [] }), want: ['cluster c: load assignment "c" is not in EDS'] },
    {
      name: 'given a secret the agent does not serve should report it',
      change: (c) => ({ ...c, clusters: [{ ...c.clusters[0]!, transportSocket: { typedConfig: { commonTlsContext: { tlsCertificateSdsSecretConfigs: [{ name: 'mystery', sdsConfig: sds }] } } } }] }),
      want: ['cluster c.typedConfig.commonTlsContext.tlsCertificateSdsSecretConfigs[0]: secret "mystery" is neither sent nor served by the agent'],
    },
    ...[
      { secret: 'file-cert:/etc/certs/tls.crt~/etc/certs/tls.key', want: [] },
      { secret: 'file-root:/etc/certs/ca.crt', want: [] },
      { secret: 'file-cert:/etc/certs/tls.crt', want: ['cluster c.typedConfig.commonTlsContext.tlsCertificateSdsSecretConfigs[0]: secret "file-cert:/etc/certs/tls.crt" is neither sent nor served by the agent'] },
      { secret: 'file-bundle:/etc/certs/ca.crt', want: ['cluster c.typedConfig.commonTlsContext.tlsCertificateSdsSecretConfigs[0]: secret "file-bundle:/etc/certs/ca.crt" is neither sent nor served by the agent'] },
    ].map(({ secret, want }) => ({
      name: `given the file secret name ${secret} should ${want.length === 0 ? 'accept it (the agent serves it)' : 'report it (the agent serves file-cert:<chain>~<key> and file-root:<ca> only)'}`,
      change: (c: ProxyConfig): ProxyConfig => ({ ...c, clusters: [{ ...c.clusters[0]!, transportSocket: { typedConfig: { commonTlsContext: { tlsCertificateSdsSecretConfigs: [{ name: secret, sdsConfig: sds }] } } } }] }),
      want,
    })),
    { name: 'given two clusters with one name should report it', change: (c) => ({ ...c, clusters: [c.clusters[0]!, c.clusters[0]!] }), want: ['cluster c: name is not unique'] },
    {
      name: 'given a domain in two virtual hosts should report it (Envoy refuses the route configuration)',
      change: (c) => ({ ...c, routes: [{ name: 'r', virtualHosts: [{ name: 'a', domains: ['x'], routes: [] }, { name: 'b', domains: ['x'], routes: [] }] }] }),
      want: ['route configuration r: domain "x" is in virtual hosts a and b'],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(checkConsistency(c.change(base())), c.want));

  it('given the sidecar test mesh should find every reference of the generated configuration', () => {
    const { proxy, snap } = sidecarAt(sidecarModel());
    const all = allSidecarResources(proxy, snap);
    assert.deepEqual(checkConsistency(all), []);
    assert.ok(all.routes.length > 0 && all.endpoints.length > 0);
  });
});
