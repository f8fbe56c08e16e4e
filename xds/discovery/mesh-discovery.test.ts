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
