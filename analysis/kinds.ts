/** The `group/Kind` keys analyzers index resources by (see `kindKey`). */
export const K = {
  Namespace: '/Namespace',
  Pod: '/Pod',
  Service: '/Service',
  ConfigMap: '/ConfigMap',
  Secret: '/Secret',
  Deployment: 'apps/Deployment',
  StatefulSet: 'apps/StatefulSet',
  DaemonSet: 'apps/DaemonSet',
  ReplicaSet: 'apps/ReplicaSet',
  MutatingWebhookConfiguration: 'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  ValidatingWebhookConfiguration: 'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  CustomResourceDefinition: 'apiextensions.k8s.io/CustomResourceDefinition',
  VirtualService: 'networking.mesh.io/VirtualService',
  DestinationRule: 'networking.mesh.io/DestinationRule',
  Gateway: 'networking.mesh.io/Gateway',
  ServiceEntry: 'networking.mesh.io/ServiceEntry',
  Sidecar: 'networking.mesh.io/Sidecar',
  EnvoyFilter: 'networking.mesh.io/EnvoyFilter',
  WorkloadEntry: 'networking.mesh.io/WorkloadEntry',
  AuthorizationPolicy: 'security.mesh.io/AuthorizationPolicy',
  PeerAuthentication: 'security.mesh.io/PeerAuthentication',
  RequestAuthentication: 'security.mesh.io/RequestAuthentication',
  Telemetry: 'telemetry.mesh.io/Telemetry',
  WasmPlugin: 'extensions.mesh.io/WasmPlugin',
  K8sGateway: 'gateway.networking.k8s.io/Gateway',
} as const;

/** A kind key of {@link K}. */
export type KindKeyName = (typeof K)[keyof typeof K];

/** API groups of the orchestrator that analyze reads and accepts without complaint. */
export const ORCH_GROUPS: ReadonlySet<string> = new Set([
  '',
  'apps',
  'batch',
  'autoscaling',
  'policy',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'discovery.k8s.io',
  'networking.k8s.io',
  'rbac.authorization.k8s.io',
  'gateway.networking.k8s.io',
  'storage.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'certificates.k8s.io',
]);

/** Istio's API groups: a user's Istio file, read by mesh, names these instead of the `mesh.io` ones. */
export const ISTIO_GROUPS: ReadonlySet<string> = new Set([
  'networking.istio.io',
  'security.istio.io',
  'telemetry.istio.io',
  'extensions.istio.io',
  'install.istio.io',
]);
