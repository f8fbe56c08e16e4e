// The Orchestrator service registry (Services, EndpointSlices, Pods, Nodes, Namespaces -> mesh services).
export { portProtocol, type PortProtocolInput } from './port-protocol.js';
export {
  parseLabelSelectors,
  selectorMatches,
  namespaceSelected,
  LabelSelectorError,
  type LabelSelector,
  type LabelSelectorRequirement,
} from './label-selector.js';
export {
  serviceEntryFromService,
  serviceHostname,
  spiffeId,
  nodeLocality,
  ORCH_SOURCE_ANNOTATION,
  ORCH_NAME_PREFIX,
  EXPORT_TO_ANNOTATION,
  LOCALITY_LABELS,
  CLUSTER_LABEL,
  NETWORK_LABEL,
  SERVICE_NAME_LABEL,
  type OrchTranslationOptions,
  type OrchLookup,
  type TranslationStats,
  type ServiceTranslation,
} from './service-entry-from-service.js';
export { workloadEntryFromPod } from './workload-entry-from-pod.js';
export {
  orchRegistry,
  orchEventName,
  orchShardKey,
  REGISTRY_EVENT_TYPES,
  type RegistryEventType,
  type OrchEventName,
  type OrchRegistryMetrics,
  type OrchRegistryOptions,
} from './orch-registry.js';
export { orchDiscoverySources, readDiscoverySelectors, type OrchDiscoverySourcesOptions } from './orch-discovery-sources.js';
