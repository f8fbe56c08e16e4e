import { analyzerTable } from '../testing/analyzer-table.js';
import { conflictingGatewayAnalyzer, gatewayCertificateAnalyzer, gatewaySecretAnalyzer, ingressGatewayPortAnalyzer } from './gateway-analyzers.js';
import { sidecarDefaultSelectorAnalyzer, sidecarSelectorAnalyzer, telemetryDefaultSelectorAnalyzer, telemetrySelectorAnalyzer } from './selector-conflicts.js';
import { lightstepAnalyzer, telemetryProviderAnalyzer } from './telemetry-provider.js';

describe('gateway.IngressGatewayPortAnalyzer', () => {
  analyzerTable(
    [ingressGatewayPortAnalyzer],
    [{ name: 'given a port the gateway service does not expose and a selector matching no pod should report both', files: ['gateways.yaml'], expected: ['IST0162 Gateway mesh-system/port-missing', 'IST0101 Gateway default/selects-nothing'] }],
  );
});

describe('gateway.SecretAnalyzer', () => {
  analyzerTable(
    [gatewaySecretAnalyzer],
    [{ name: 'given an invalid and a missing credential should report each', files: ['gateways.yaml', 'gateways-tls.yaml'], expected: ['IST0161 Gateway mesh-system/tls-a', 'IST0101 Gateway mesh-system/tls-b', 'IST0161 Gateway mesh-system/tls-c'] }],
  );
});

describe('gateway.CertificateAnalyzer', () => {
  analyzerTable(
    [gatewayCertificateAnalyzer],
    [{ name: 'given two gateways of one selector sharing a credential should report both', files: ['gateways-tls.yaml'], expected: ['IST0138 Gateway mesh-system/tls-a', 'IST0138 Gateway mesh-system/tls-c'] }],
  );
});

describe('gateway.ConflictingGatewayAnalyzer', () => {
  analyzerTable(
    [conflictingGatewayAnalyzer],
    [{ name: 'given two gateways with one selector, port and host should report both', files: ['gateways-tls.yaml'], expected: ['IST0145 Gateway mesh-system/tls-a', 'IST0145 Gateway mesh-system/tls-c'] }],
  );
});

describe('sidecar.SelectorAnalyzer', () => {
  analyzerTable(
    [sidecarSelectorAnalyzer],
    [
      {
        name: 'given two sidecars selecting one pod, one selecting none and two selecting an ambient pod should report each, the ambient ones as ineffective not conflicting',
        files: ['sidecars.yaml'],
        expected: ['IST0110 Sidecar default/by-app', 'IST0110 Sidecar default/by-version', 'IST0101 Sidecar default/selects-nothing', 'IST0167 Sidecar default/ratings-1', 'IST0167 Sidecar default/ratings-2'],
      },
    ],
  );
});

describe('sidecar.DefaultSelectorAnalyzer', () => {
  analyzerTable(
    [sidecarDefaultSelectorAnalyzer],
    [
      {
        name: 'given two sidecars without selector in one namespace should report both, and in an ambient namespace each as ineffective (not when it also injects sidecars)',
        files: ['sidecars.yaml'],
        expected: ['IST0111 Sidecar default/default-1', 'IST0111 Sidecar default/default-2', 'IST0167 Sidecar ambient/namespace-scoped', 'IST0167 Sidecar ambient/namespace-scoped-2'],
      },
    ],
  );
});

describe('telemetry analyzers', () => {
  analyzerTable(
    [telemetrySelectorAnalyzer, telemetryDefaultSelectorAnalyzer, telemetryProviderAnalyzer],
    [
      {
        name: 'given overlapping selectors, one selecting no pod (IST0101 as Istio), two without selector and an access log without providers should report each',
        files: ['telemetry.yaml'],
        expected: ['IST0159 Telemetry default/by-app', 'IST0159 Telemetry default/by-version', 'IST0101 Telemetry default/selects-nothing', 'IST0160 Telemetry default/ns-1', 'IST0160 Telemetry default/ns-2', 'IST0157 Telemetry default/ns-1'],
      },
      {
        name: 'given default access-logging providers in the mesh config should not report the provider-less entry',
        files: ['telemetry.yaml'],
        expected: ['IST0159 Telemetry default/by-app', 'IST0159 Telemetry default/by-version', 'IST0101 Telemetry default/selects-nothing', 'IST0160 Telemetry default/ns-1', 'IST0160 Telemetry default/ns-2'],
        meshConfig: { defaultProviders: { accessLogging: ['envoy'] } },
      },
    ],
  );
});

describe('telemetry.LightstepAnalyzer', () => {
  const providers = [
    { name: 'lightstep-prod', lightstep: { service: 'lightstep.mesh-system.svc.cluster.local', port: 8080, accessToken: 'x' } },
    { name: 'otel', opentelemetry: { service: 'otel.mesh-system.svc.cluster.local', port: 4317 } },
  ];
  analyzerTable(
    [lightstepAnalyzer],
    [
      {
        name: 'given tracing to a Lightstep extension provider should report each Telemetry using it, not other providers or access logging',
        files: ['telemetry-lightstep.yaml'],
        expected: ['IST0002 Telemetry mesh-system/mesh-default', 'IST0002 Telemetry default/both'],
        meshConfig: { extensionProviders: providers },
      },
      { name: 'given no Lightstep extension provider should report nothing', files: ['telemetry-lightstep.yaml'], expected: [], meshConfig: { extensionProviders: providers.slice(1) } },
    ],
  );
});
