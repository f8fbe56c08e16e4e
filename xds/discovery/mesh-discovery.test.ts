import assert from 'node:assert/strict';
import { loadEnv } from '../../core/index.js';
import { generatorOptionsFromEnv } from './mesh-discovery.js';

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
});

describe('generatorOptionsFromEnv: the sidecar listener options', () => {
  const DEFAULTS = { useRemoteAddress: false, http10: false, hcmInternalNetworks: false, alpnFilter: true, ipv4OutboundForIpv6: false, headlessPodListeners: true };
  const cases: { name: string; env: Record<string, string>; want: Partial<typeof DEFAULTS> }[] = [
    { name: 'given none should take the spec defaults (istiod defaults)', env: {}, want: {} },
    { name: 'given PILOT_SIDECAR_USE_REMOTE_ADDRESS=true should set useRemoteAddress', env: { PILOT_SIDECAR_USE_REMOTE_ADDRESS: 'true' }, want: { useRemoteAddress: true } },
    { name: 'given PILOT_HTTP10=1 should set http10', env: { PILOT_HTTP10: '1' }, want: { http10: true } },
    { name: 'given ENABLE_HCM_INTERNAL_NETWORKS=true should set hcmInternalNetworks', env: { ENABLE_HCM_INTERNAL_NETWORKS: 'true' }, want: { hcmInternalNetworks: true } },
    { name: 'given PILOT_ENABLE_ALPN_FILTER=false should clear alpnFilter', env: { PILOT_ENABLE_ALPN_FILTER: 'false' }, want: { alpnFilter: false } },
    { name: 'given MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS=true should set ipv4OutboundForIpv6', env: { MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS: 'true' }, want: { ipv4OutboundForIpv6: true } },
    { name: 'given PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS=false should clear headlessPodListeners', env: { PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS: 'false' }, want: { headlessPodListeners: false } },
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
