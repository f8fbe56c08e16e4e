/** Every analyzer, in Istio's order (sorted by package and name), then one schema analyzer per mesh.io kind. */
import type { Analyzer } from './analyzer.js';
import { annotationsAnalyzer } from './analyzers/annotations.js';
import { authorizationPoliciesAnalyzer } from './analyzers/authorization-policies.js';
import { conditionAnalyzer } from './analyzers/conditions.js';
import { deprecationAnalyzer } from './analyzers/deprecation.js';
import { k8sGatewayCrdVersionAnalyzer, k8sGatewaySelectorAnalyzer } from './analyzers/k8s-gateway-analyzers.js';
import { caCertificateAnalyzer } from './analyzers/destination-rule-ca-certificate.js';
import { subsetSelectPodAnalyzer } from './analyzers/destination-rule-subsets.js';
import { applicationUidAnalyzer, multiServiceAnalyzer } from './analyzers/deployment-analyzers.js';
import { routeCacheAnalyzer } from './analyzers/envoy-filter-route-cache.js';
import { envoyPatchAnalyzer } from './analyzers/envoy-patch.js';
import { externalControlPlaneAnalyzer } from './analyzers/external-control-plane.js';
import { meshNetworksAnalyzer } from './analyzers/mesh-networks.js';
import { multiClusterServiceAnalyzer } from './analyzers/multicluster-service.js';
import { conflictingGatewayAnalyzer, gatewayCertificateAnalyzer, gatewaySecretAnalyzer, ingressGatewayPortAnalyzer } from './analyzers/gateway-analyzers.js';
import { imageAutoAnalyzer, injectionAnalyzer, injectionImageAnalyzer } from './analyzers/injection-analyzers.js';
import { schemaValidationAnalyzers } from './analyzers/schema-validation.js';
import { sidecarDefaultSelectorAnalyzer, sidecarSelectorAnalyzer, telemetryDefaultSelectorAnalyzer, telemetrySelectorAnalyzer } from './analyzers/selector-conflicts.js';
import { serviceEntryAddressesAnalyzer } from './analyzers/service-entry-addresses.js';
import { conflictingServiceEntryProtocolAnalyzer } from './analyzers/service-entry-protocols.js';
import { portNameAnalyzer } from './analyzers/service-port-name.js';
import { lightstepAnalyzer, telemetryProviderAnalyzer } from './analyzers/telemetry-provider.js';
import { conflictingMeshGatewayHostsAnalyzer } from './analyzers/virtual-service-conflicting-mesh-gateway-hosts.js';
import { destinationHostAnalyzer } from './analyzers/virtual-service-destination-host.js';
import { virtualServiceDestinationRuleAnalyzer } from './analyzers/virtual-service-destination-rule.js';
import { virtualServiceGatewayAnalyzer } from './analyzers/virtual-service-gateway.js';
import { jwtClaimRouteAnalyzer } from './analyzers/virtual-service-jwt-claim-route.js';
import { regexAnalyzer } from './analyzers/virtual-service-regex.js';
import { webhookAnalyzer } from './analyzers/webhook.js';

/** All analyzers `meshctl analyze` runs. */
export const ALL_ANALYZERS: readonly Analyzer[] = [
  annotationsAnalyzer,
  authorizationPoliciesAnalyzer,
  conditionAnalyzer,
  multiServiceAnalyzer,
  applicationUidAnalyzer,
  deprecationAnalyzer,
  externalControlPlaneAnalyzer,
  ingressGatewayPortAnalyzer,
  gatewayCertificateAnalyzer,
  gatewaySecretAnalyzer,
  conflictingGatewayAnalyzer,
  injectionAnalyzer,
  injectionImageAnalyzer,
  imageAutoAnalyzer,
  k8sGatewaySelectorAnalyzer,
  k8sGatewayCrdVersionAnalyzer,
  meshNetworksAnalyzer,
  multiClusterServiceAnalyzer,
  portNameAnalyzer,
  sidecarDefaultSelectorAnalyzer,
  sidecarSelectorAnalyzer,
  conflictingMeshGatewayHostsAnalyzer,
  destinationHostAnalyzer,
  virtualServiceDestinationRuleAnalyzer,
  virtualServiceGatewayAnalyzer,
  jwtClaimRouteAnalyzer,
  regexAnalyzer,
  caCertificateAnalyzer,
  subsetSelectPodAnalyzer,
  serviceEntryAddressesAnalyzer,
  conflictingServiceEntryProtocolAnalyzer,
  webhookAnalyzer,
  envoyPatchAnalyzer,
  routeCacheAnalyzer,
  telemetryProviderAnalyzer,
  telemetrySelectorAnalyzer,
  telemetryDefaultSelectorAnalyzer,
  lightstepAnalyzer,
  ...schemaValidationAnalyzers,
];

/** One analyzer by Istio's name. */
export function analyzerByName(name: string): Analyzer | undefined {
  return ALL_ANALYZERS.find((a) => a.name === name);
}
