import assert from 'node:assert/strict';
import { loadEnv } from '../../core/index.js';
import { generatorOptionsFromEnv, UnsupportedOptionError } from './mesh-discovery.js';

describe('generatorOptionsFromEnv', () => {
  const cases: { name: string; env: Record<string, string>; want: { edsForHeadless: boolean; tlsOnSidecarIngress: boolean } }[] = [
    { name: 'given neither variable should leave headless services ORIGINAL_DST and Sidecar ingress TLS off (istiod defaults)', env: {}, want: { edsForHeadless: false, tlsOnSidecarIngress: false } },
    { name: 'given PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES=true should turn EDS for headless services on', env: { PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES: 'true' }, want: { edsForHeadless: true, tlsOnSidecarIngress: false } },
    { name: 'given ENABLE_TLS_ON_SIDECAR_INGRESS=1 should turn Sidecar ingress TLS on', env: { ENABLE_TLS_ON_SIDECAR_INGRESS: '1' }, want: { edsForHeadless: false, tlsOnSidecarIngress: true } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const o = generatorOptionsFromEnv(loadEnv('pilot-discovery', c.env));
      assert.deepEqual({ edsForHeadless: o.edsForHeadless, tlsOnSidecarIngress: o.tlsOnSidecarIngress }, c.want);
    });
  }

  const clusterOptions: { name: string; env: Record<string, string>; want: { autoSni: boolean; redisFilter: boolean; mongoFilter: boolean; routeCollapse: boolean; verifyCertAtClient: boolean } }[] = [
    { name: 'given none of them should turn auto SNI, the Mongo filter and route collapse on and the Redis filter off (the spec\'s and istiod\'s defaults)', env: {}, want: { autoSni: true, redisFilter: false, mongoFilter: true, routeCollapse: true, verifyCertAtClient: true } },
    { name: 'given ENABLE_AUTO_SNI=false should turn auto SNI off', env: { ENABLE_AUTO_SNI: 'false' }, want: { autoSni: false, redisFilter: false, mongoFilter: true, routeCollapse: true, verifyCertAtClient: true } },
    { name: 'given PILOT_ENABLE_REDIS_FILTER=true and PILOT_ENABLE_MONGO_FILTER=false should swap the protocol filters', env: { PILOT_ENABLE_REDIS_FILTER: 'true', PILOT_ENABLE_MONGO_FILTER: 'false' }, want: { autoSni: true, redisFilter: true, mongoFilter: false, routeCollapse: true, verifyCertAtClient: true } },
    { name: 'given VERIFY_CERTIFICATE_AT_CLIENT=false should stop verifying originations without caCertificates', env: { VERIFY_CERTIFICATE_AT_CLIENT: 'false' }, want: { autoSni: true, redisFilter: false, mongoFilter: true, routeCollapse: true, verifyCertAtClient: false } },
    { name: 'given PILOT_ENABLE_ROUTE_COLLAPSE_OPTIMIZATION=false should turn route collapse off', env: { PILOT_ENABLE_ROUTE_COLLAPSE_OPTIMIZATION: 'false' }, want: { autoSni: true, redisFilter: false, mongoFilter: true, routeCollapse: false, verifyCertAtClient: true } },
  ];
  for (const c of clusterOptions) {
    it(c.name, () => {
      const o = generatorOptionsFromEnv(loadEnv('pilot-discovery', c.env));
      assert.deepEqual({ autoSni: o.autoSni, redisFilter: o.redisFilter, mongoFilter: o.mongoFilter, routeCollapse: o.routeCollapse, verifyCertAtClient: o.verifyCertAtClient }, c.want);
    });
  }

  it('given PILOT_ENABLE_MYSQL_FILTER=true should refuse to start, naming the variable and why', () => {
    assert.throws(
      () => generatorOptionsFromEnv(loadEnv('pilot-discovery', { PILOT_ENABLE_MYSQL_FILTER: 'true' })),
      (e: unknown) => e instanceof UnsupportedOptionError && e.variable === 'PILOT_ENABLE_MYSQL_FILTER' && /^PILOT_ENABLE_MYSQL_FILTER=true is not supported: .*contrib filter/.test(e.message),
    );
    assert.doesNotThrow(() => generatorOptionsFromEnv(loadEnv('pilot-discovery', { PILOT_ENABLE_MYSQL_FILTER: 'false' })));
  });
});

describe('generatorOptionsFromEnv: the sidecar listener options', () => {
  const DEFAULTS = { useRemoteAddress: false, http10: false, hcmInternalNetworks: false, alpnFilter: true, ipv4OutboundForIpv6: false, headlessPodListeners: true, dualStack: false };
  const cases: { name: string; env: Record<string, string>; want: Partial<typeof DEFAULTS> }[] = [
    { name: 'given none should take the spec defaults (istiod defaults)', env: {}, want: {} },
    { name: 'given PILOT_SIDECAR_USE_REMOTE_ADDRESS=true should set useRemoteAddress', env: { PILOT_SIDECAR_USE_REMOTE_ADDRESS: 'true' }, want: { useRemoteAddress: true } },
    { name: 'given PILOT_HTTP10=1 should set http10', env: { PILOT_HTTP10: '1' }, want: { http10: true } },
    { name: 'given ENABLE_HCM_INTERNAL_NETWORKS=true should set hcmInternalNetworks', env: { ENABLE_HCM_INTERNAL_NETWORKS: 'true' }, want: { hcmInternalNetworks: true } },
    { name: 'given PILOT_ENABLE_ALPN_FILTER=false should clear alpnFilter', env: { PILOT_ENABLE_ALPN_FILTER: 'false' }, want: { alpnFilter: false } },
    { name: 'given MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS=true should set ipv4OutboundForIpv6', env: { MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS: 'true' }, want: { ipv4OutboundForIpv6: true } },
    { name: 'given PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS=false should clear headlessPodListeners', env: { PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS: 'false' }, want: { headlessPodListeners: false } },
    { name: 'given MESH_DUAL_STACK=true should set dualStack', env: { MESH_DUAL_STACK: 'true' }, want: { dualStack: true } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(generatorOptionsFromEnv(loadEnv('pilot-discovery', c.env)).listener, { ...DEFAULTS, ...c.want });
    });
  }
  it('given PILOT_HTTP10=maybe should refuse it, naming the variable', () => {
    assert.throws(() => generatorOptionsFromEnv(loadEnv('pilot-discovery', { PILOT_HTTP10: 'maybe' })), /PILOT_HTTP10/);
  });
});
