/**
 * The analysis message catalogue: Istio's message names, `IST` codes, levels and templates, kept as they
 * are so that users' suppressions (`-S IST0101=...`), searches and documentation links carry over. Only
 * Istio's product words are renamed (istio -> mesh, kubectl -> the orchestrator's CLI is left as is).
 */

/** The analysis levels, lowest first. */
export const LEVELS = ['Info', 'Warning', 'Error'] as const;
/** A message level. */
export type Level = (typeof LEVELS)[number];

/** The rank of a level (Info 0, Warning 1, Error 2). */
export function levelRank(level: Level): number {
  return LEVELS.indexOf(level);
}

/** One kind of finding. */
export interface MessageType {
  readonly name: string;
  /** `IST` + four digits, as in Istio. */
  readonly code: string;
  readonly level: Level;
  readonly description: string;
  /** A Go-style format (`%s`, `%q`, `%v`, `%d`, `%t`) filled by the finding's arguments. */
  readonly template: string;
}

const m = (name: string, code: string, level: Level, description: string, template: string): MessageType => ({ name, code, level, description, template });

/** Every message type, keyed by name. */
export const MESSAGES = {
  InternalError: m('InternalError', 'IST0001', 'Error', 'There was an internal error in the toolchain. This is almost always a bug in the implementation.', 'Internal error: %v'),
  Deprecated: m('Deprecated', 'IST0002', 'Warning', 'A feature that the configuration is depending on is now deprecated.', 'Deprecated: %s'),
  ReferencedResourceNotFound: m('ReferencedResourceNotFound', 'IST0101', 'Error', 'A resource being referenced does not exist.', 'Referenced %s not found: %q'),
  NamespaceNotInjected: m('NamespaceNotInjected', 'IST0102', 'Info', 'A namespace is not enabled for Mesh injection.', "The namespace is not enabled for Mesh injection. Run 'kubectl label namespace %s mesh-injection=enabled' to enable it, or 'kubectl label namespace %s mesh-injection=disabled' to explicitly mark it as not needing injection."),
  PodMissingProxy: m('PodMissingProxy', 'IST0103', 'Warning', 'A pod is missing the Mesh proxy.', 'The pod %s is missing the Mesh proxy. This can often be resolved by restarting or redeploying the workload.'),
  SchemaValidationError: m('SchemaValidationError', 'IST0106', 'Error', 'The resource has a schema validation error.', 'Schema validation error: %v'),
  MisplacedAnnotation: m('MisplacedAnnotation', 'IST0107', 'Warning', 'A Mesh annotation is applied to the wrong kind of resource.', 'Misplaced annotation: %s can only be applied to %s'),
  UnknownAnnotation: m('UnknownAnnotation', 'IST0108', 'Warning', 'A Mesh annotation is not recognized for any kind of resource', 'Unknown annotation: %s'),
  ConflictingMeshGatewayVirtualServiceHosts: m('ConflictingMeshGatewayVirtualServiceHosts', 'IST0109', 'Error', 'Conflicting hosts on VirtualServices associated with mesh gateway', 'The VirtualServices %s associated with mesh gateway define the same host %s which can lead to undefined behavior. This can be fixed by merging the conflicting VirtualServices into a single resource.'),
  ConflictingSidecarWorkloadSelectors: m('ConflictingSidecarWorkloadSelectors', 'IST0110', 'Error', 'A Sidecar resource selects the same workloads as another Sidecar resource', 'The Sidecars %v in namespace %q select the same workload pod %q, which can lead to undefined behavior.'),
  MultipleSidecarsWithoutWorkloadSelectors: m('MultipleSidecarsWithoutWorkloadSelectors', 'IST0111', 'Error', 'More than one sidecar resource in a namespace has no workload selector', 'The Sidecars %v in namespace %q have no workload selector, which can lead to undefined behavior.'),
  VirtualServiceDestinationPortSelectorRequired: m('VirtualServiceDestinationPortSelectorRequired', 'IST0112', 'Error', 'A VirtualService routes to a service with more than one port exposed, but does not specify which to use.', 'This VirtualService routes to a service %q that exposes multiple ports %v. Specifying a port in the destination is required to disambiguate.'),
  MTLSPolicyConflict: m('MTLSPolicyConflict', 'IST0113', 'Error', 'A DestinationRule and Policy are in conflict with regards to mTLS.', 'A DestinationRule and Policy are in conflict with regards to mTLS for host %s. The DestinationRule %q specifies that mTLS must be %t but the Policy object %q specifies %s.'),
  DeploymentAssociatedToMultipleServices: m('DeploymentAssociatedToMultipleServices', 'IST0116', 'Warning', "The resulting pods of a service mesh deployment can't be associated with multiple services using the same port but different protocols.", 'This deployment %s is associated with multiple services using port %d but different protocols: %v'),
  PortNameIsNotUnderNamingConvention: m('PortNameIsNotUnderNamingConvention', 'IST0118', 'Info', 'Port name is not under naming convention. Protocol detection is applied to the port.', "Port name %s (port: %d, targetPort: %s) doesn't follow the naming convention of Mesh port."),
  JwtFailureDueToInvalidServicePortPrefix: m('JwtFailureDueToInvalidServicePortPrefix', 'IST0119', 'Warning', 'Authentication policy with JWT targets Service with invalid port specification.', 'Authentication policy with JWT targets Service with invalid port specification (port: %d, name: %s, protocol: %s, targetPort: %s).'),
  InvalidRegexp: m('InvalidRegexp', 'IST0122', 'Warning', 'Invalid Regex', 'Field %q regular expression invalid: %q (%s)'),
  NamespaceMultipleInjectionLabels: m('NamespaceMultipleInjectionLabels', 'IST0123', 'Warning', 'A namespace has more than one type of injection labels', 'The namespace has more than one type of injection labels %v, which may lead to undefined behavior. Make sure only one injection label exists.'),
  InvalidAnnotation: m('InvalidAnnotation', 'IST0125', 'Warning', 'A Mesh annotation that is not valid', 'Invalid annotation %s: %s'),
  UnknownMeshNetworksServiceRegistry: m('UnknownMeshNetworksServiceRegistry', 'IST0126', 'Error', 'A service registry in Mesh Networks is unknown', 'Unknown service registry %s in network %s'),
  NoMatchingWorkloadsFound: m('NoMatchingWorkloadsFound', 'IST0127', 'Warning', "There aren't workloads matching the resource labels", 'No matching workloads for this resource with the following labels: %s'),
  NoServerCertificateVerificationDestinationLevel: m('NoServerCertificateVerificationDestinationLevel', 'IST0128', 'Warning', 'No caCertificates are set in DestinationRule, this results in no verification of presented server certificate.', 'DestinationRule %s in namespace %s has TLS mode set to %s but no caCertificates are set to validate server identity for host: %s'),
  NoServerCertificateVerificationPortLevel: m('NoServerCertificateVerificationPortLevel', 'IST0129', 'Warning', 'No caCertificates are set in DestinationRule, this results in no verification of presented server certificate for traffic to a given port.', 'DestinationRule %s in namespace %s has TLS mode set to %s but no caCertificates are set to validate server identity for host: %s at port %s'),
  VirtualServiceUnreachableRule: m('VirtualServiceUnreachableRule', 'IST0130', 'Warning', 'A VirtualService rule will never be used because a previous rule uses the same match.', 'VirtualService rule %v not used (%s).'),
  VirtualServiceIneffectiveMatch: m('VirtualServiceIneffectiveMatch', 'IST0131', 'Info', 'A VirtualService rule match duplicates a match in a previous rule.', 'VirtualService rule %v match %v is not used (duplicate/overlapping match in rule %v).'),
  VirtualServiceHostNotFoundInGateway: m('VirtualServiceHostNotFoundInGateway', 'IST0132', 'Warning', 'Host defined in VirtualService not found in Gateway.', 'one or more host %v defined in VirtualService %s not found in Gateway %s.'),
  SchemaWarning: m('SchemaWarning', 'IST0133', 'Warning', 'The resource has a schema validation warning.', 'Schema validation warning: %v'),
  ServiceEntryAddressesRequired: m('ServiceEntryAddressesRequired', 'IST0134', 'Warning', 'Virtual IP addresses are required for ports serving TCP (or unset) protocol', 'ServiceEntry addresses are required for this protocol.'),
  DeprecatedAnnotation: m('DeprecatedAnnotation', 'IST0135', 'Info', 'A resource is using a deprecated Mesh annotation.', 'Annotation %q has been deprecated%s and may not work in future Mesh versions.'),
  AlphaAnnotation: m('AlphaAnnotation', 'IST0136', 'Info', 'A Mesh annotation may not be suitable for production.', 'Annotation %q is part of an alpha-phase feature and may be incompletely supported.'),
  DeploymentConflictingPorts: m('DeploymentConflictingPorts', 'IST0137', 'Warning', 'Two services selecting the same workload with the same targetPort MUST refer to the same port.', 'This deployment %s is associated with multiple services %v using targetPort %q but different ports: %v.'),
  GatewayDuplicateCertificate: m('GatewayDuplicateCertificate', 'IST0138', 'Warning', 'Duplicate certificate in multiple gateways may cause 404s if clients re-use HTTP2 connections.', 'Duplicate certificate in multiple gateways %v may cause 404s if clients re-use HTTP2 connections.'),
  InvalidWebhook: m('InvalidWebhook', 'IST0139', 'Error', 'Webhook is invalid or references a control plane service that does not exist.', '%v'),
  IngressRouteRulesNotAffected: m('IngressRouteRulesNotAffected', 'IST0140', 'Warning', 'Route rules have no effect on ingress gateway requests', 'Subset in virtual service %s has no effect on ingress gateway %s requests'),
  LocalhostListener: m('LocalhostListener', 'IST0143', 'Error', 'A port exposed in a Service is bound to a localhost address', 'Port %v is exposed in a Service but listens on localhost. It will not be exposed to other pods.'),
  InvalidApplicationUID: m('InvalidApplicationUID', 'IST0144', 'Warning', 'Application pods should not run as user ID (UID) 1337', 'User ID (UID) 1337 is reserved for the sidecar proxy.'),
  ConflictingGateways: m('ConflictingGateways', 'IST0145', 'Error', 'Gateway should not have the same selector, port and matched hosts of server', 'Conflict with gateways %s (workload selector %s, port %s, hosts %v).'),
  ImageAutoWithoutInjectionWarning: m('ImageAutoWithoutInjectionWarning', 'IST0146', 'Warning', 'Deployments with `image: auto` should be targeted for injection.', '%s %s contains `image: auto` but does not match any Mesh injection webhook selectors.'),
  ImageAutoWithoutInjectionError: m('ImageAutoWithoutInjectionError', 'IST0147', 'Error', 'Pods with `image: auto` should be targeted for injection.', '%s %s contains `image: auto` but does not match any Mesh injection webhook selectors.'),
  NamespaceInjectionEnabledByDefault: m('NamespaceInjectionEnabledByDefault', 'IST0148', 'Info', 'user namespace should be injectable if Mesh is installed with enableNamespacesByDefault enabled and neither injection label is set.', 'is enabled for Mesh injection, as Mesh is installed with enableNamespacesByDefault as true.'),
  JwtClaimBasedRoutingWithoutRequestAuthN: m('JwtClaimBasedRoutingWithoutRequestAuthN', 'IST0149', 'Error', 'Virtual service using JWT claim based routing without request authentication.', 'The virtual service uses the JWT claim based routing (key: %s) but found no request authentication for the gateway (%s) pod (%s). The request authentication must first be applied for the gateway pods to validate the JWT token and make the claims available for routing.'),
  ExternalNameServiceTypeInvalidPortName: m('ExternalNameServiceTypeInvalidPortName', 'IST0150', 'Warning', 'Proxy may prevent tcp named ports and unmatched traffic for ports serving TCP protocol from being forwarded correctly for ExternalName services.', 'Port name for ExternalName service is invalid. Proxy may prevent tcp named ports and unmatched traffic for ports serving TCP protocol from being forwarded correctly'),
  EnvoyFilterUsesRelativeOperation: m('EnvoyFilterUsesRelativeOperation', 'IST0151', 'Warning', 'This EnvoyFilter does not have a priority and has a relative patch operation set which can cause the EnvoyFilter not to be applied.', 'This EnvoyFilter does not have a priority and has a relative patch operation set which can cause the EnvoyFilter not to be applied. Using the INSERT_FIRST or ADD option or setting the priority may help in ensuring the EnvoyFilter is applied correctly.'),
  EnvoyFilterUsesReplaceOperationIncorrectly: m('EnvoyFilterUsesReplaceOperationIncorrectly', 'IST0152', 'Error', 'The REPLACE operation is only valid for HTTP_FILTER and NETWORK_FILTER.', 'The REPLACE operation is only valid for HTTP_FILTER and NETWORK_FILTER.'),
  EnvoyFilterUsesAddOperationIncorrectly: m('EnvoyFilterUsesAddOperationIncorrectly', 'IST0153', 'Error', 'The ADD operation will be ignored when applyTo is set to ROUTE_CONFIGURATION, or HTTP_ROUTE.', 'The ADD operation will be ignored when applyTo is set to ROUTE_CONFIGURATION, or HTTP_ROUTE.'),
  EnvoyFilterUsesRemoveOperationIncorrectly: m('EnvoyFilterUsesRemoveOperationIncorrectly', 'IST0154', 'Error', 'The REMOVE operation will be ignored when applyTo is set to ROUTE_CONFIGURATION, or HTTP_ROUTE.', 'The REMOVE operation will be ignored when applyTo is set to ROUTE_CONFIGURATION, or HTTP_ROUTE.'),
  EnvoyFilterUsesRelativeOperationWithProxyVersion: m('EnvoyFilterUsesRelativeOperationWithProxyVersion', 'IST0155', 'Warning', 'This EnvoyFilter does not have a priority and has a relative patch operation and proxyVersion set which can cause the EnvoyFilter not to be applied during an upgrade.', 'This EnvoyFilter does not have a priority and has a relative patch operation (INSERT_BEFORE/AFTER, REPLACE, MERGE, DELETE) and proxyVersion set which can cause the EnvoyFilter not to be applied during an upgrade. Using the INSERT_FIRST or ADD option or setting the priority may help in ensuring the EnvoyFilter is applied correctly.'),
  UnsupportedGatewayAPIVersion: m('UnsupportedGatewayAPIVersion', 'IST0156', 'Error', 'The Gateway API CRD version is not supported', 'The Gateway API CRD version %v is lower than the minimum version: %v'),
  InvalidTelemetryProvider: m('InvalidTelemetryProvider', 'IST0157', 'Warning', 'The Telemetry with empty providers will be ignored', 'The Telemetry %v in namespace %q with empty providers will be ignored.'),
  PodsMeshProxyImageMismatchInNamespace: m('PodsMeshProxyImageMismatchInNamespace', 'IST0158', 'Warning', 'The Mesh proxy image of the pods running in the namespace do not match the image defined in the injection configuration.', 'The Mesh proxy images of the pods running in the namespace do not match the image defined in the injection configuration (pod names: %v). This often happens after upgrading the Mesh control-plane and can be fixed by redeploying the pods.'),
  ConflictingTelemetryWorkloadSelectors: m('ConflictingTelemetryWorkloadSelectors', 'IST0159', 'Error', 'A Telemetry resource selects the same workloads as another Telemetry resource', 'The Telemetries %v in namespace %q select the same workload pod %q, which can lead to undefined behavior.'),
  MultipleTelemetriesWithoutWorkloadSelectors: m('MultipleTelemetriesWithoutWorkloadSelectors', 'IST0160', 'Error', 'More than one telemetry resource in a namespace has no workload selector', 'The Telemetries %v in namespace %q have no workload selector, which can lead to undefined behavior.'),
  InvalidGatewayCredential: m('InvalidGatewayCredential', 'IST0161', 'Error', 'The credential provided for the Gateway resource is invalid', 'The credential referenced by the Gateway %s in namespace %s is invalid, which can cause the traffic not to work as expected.'),
  GatewayPortNotDefinedOnService: m('GatewayPortNotDefinedOnService', 'IST0162', 'Warning', 'Gateway port not exposed by service', 'The gateway is listening on a target port (port %d) that is not defined in the Service associated with its workload instances (Pod selector %s). If you need to access the gateway port through the gateway Service, it will not be available.'),
  InvalidExternalControlPlaneConfig: m('InvalidExternalControlPlaneConfig', 'IST0163', 'Warning', 'Address for the ingress gateway on the external control plane is not valid', 'The hostname (%s) that was provided for the webhook (%s) to reach the ingress gateway on the external control plane cluster %s. Traffic may not flow properly.'),
  ExternalControlPlaneAddressIsNotAHostname: m('ExternalControlPlaneAddressIsNotAHostname', 'IST0164', 'Info', 'Address for the ingress gateway on the external control plane is an IP address and not a hostname', 'The address (%s) that was provided for the webhook (%s) to reach the ingress gateway on the external control plane cluster is an IP address. This is not recommended for a production environment.'),
  ReferencedInternalGateway: m('ReferencedInternalGateway', 'IST0165', 'Warning', 'VirtualServices should not reference internal Gateways.', 'Gateway reference in VirtualService %s is to an implementation-generated internal Gateway: %s.'),
  IneffectiveSelector: m('IneffectiveSelector', 'IST0166', 'Warning', 'Selector has no effect when applied to Orchestrator Gateways.', 'Ineffective selector on Orchestrator Gateway %s. Use the TargetRef field instead.'),
  IneffectivePolicy: m('IneffectivePolicy', 'IST0167', 'Warning', 'The policy applied has no impact.', 'The policy has no impact: %s.'),
  UnknownUpgradeCompatibility: m('UnknownUpgradeCompatibility', 'IST0168', 'Warning', 'We cannot automatically detect whether a change is fully compatible or not', 'The configuration %q changed in release %s, but compatibility cannot be automatically detected: %s. Or, install with `--set compatibilityVersion=%s` to retain the old default.'),
  UpdateIncompatibility: m('UpdateIncompatibility', 'IST0169', 'Warning', 'The provided configuration object may be incompatible due to an upgrade', 'The configuration %q changed in release %s: %s. Or, install with `--set compatibilityVersion=%s` to retain the old default.'),
  MultiClusterInconsistentService: m('MultiClusterInconsistentService', 'IST0170', 'Warning', 'The services live in different clusters under multi-cluster deployment model are inconsistent', 'The service %v in namespace %q is inconsistent across clusters %q, which can lead to undefined behaviors. The inconsistent behaviors are: %v.'),
  NegativeConditionStatus: m('NegativeConditionStatus', 'IST0171', 'Warning', 'A condition with a negative status is present', 'A condition with a negative status is present: type=%s, reason=%s, message=%s.'),
  DestinationRuleSubsetNotSelectPods: m('DestinationRuleSubsetNotSelectPods', 'IST0173', 'Error', 'Subsets defined in destination does not select any pods.', 'The Subset %s defined in the DestinationRule does not select any pods. Which may lead to 503 UH (NoHealthyUpstream).'),
  UnknownDestinationRuleHost: m('UnknownDestinationRuleHost', 'IST0174', 'Warning', 'Host defined in destination rule does not match any services in the mesh.', 'The host %s defined in the DestinationRule does not match any services in the mesh.'),
  // NOTE: Istio's newest codes; code, level and template as istio.io's message pages show them (ist0177, ist0178).
  ConflictingServiceEntryProtocol: m('ConflictingServiceEntryProtocol', 'IST0177', 'Warning', 'ServiceEntries visible in one namespace define the same host and port with different protocols.', 'Multiple ServiceEntries (%s) define the same host %q and port %d with conflicting protocols (%s).'),
  EnvoyFilterMayClearRouteCache: m('EnvoyFilterMayClearRouteCache', 'IST0178', 'Warning', 'An EnvoyFilter adds HTTP filters to gateways or waypoints while an AuthorizationPolicy targets an HTTPRoute.', 'Using an EnvoyFilter with route-dependent filters may cause the routing cache to be cleared after the route-dependent filter has run. This can cause a request to be routed differently than it was when the route-dependent filter was evaluated. See https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/http/http_filters.html#security-considerations.'),
} as const satisfies Record<string, MessageType>;

/** A message name of the catalogue. */
export type MessageName = keyof typeof MESSAGES;

/** Every message type, ordered by code. */
export const ALL_MESSAGES: readonly MessageType[] = Object.values(MESSAGES).sort((a, b) => a.code.localeCompare(b.code));

function goValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (v instanceof Error) return v.message;
  return String(v);
}

/** Fills a Go-style template (`%s`, `%v`, `%q`, `%d`, `%t`, `%%`); arrays print as Go does (`[a b]`). */
export function formatTemplate(template: string, args: readonly unknown[]): string {
  let i = 0;
  return template.replace(/%[svqdt%]/g, (verb) => {
    if (verb === '%%') return '%';
    const v = args[i++];
    if (v === undefined) return `%!${verb[1]}(MISSING)`;
    if (verb === '%q') return Array.isArray(v) ? `[${v.map((x) => JSON.stringify(String(x))).join(' ')}]` : JSON.stringify(goValue(v));
    return goValue(v);
  });
}
