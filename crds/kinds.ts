import { AGE_COLUMN, defineKind } from './schema/kind-definition.js';
import { destinationRuleSpec } from './schemas/networking/destination-rule.js';
import { serviceEntrySpec } from './schemas/networking/service-entry.js';
import { virtualServiceSpec } from './schemas/networking/virtual-service.js';
import { workloadEntrySpec } from './schemas/networking/workload-entry.js';
import { authorizationPolicySpec } from './schemas/security/authorization-policy.js';
import { meshStatus } from './schemas/shared/status.js';
import { gatewaySpec } from './schemas/networking/gateway.js';
import { sidecarSpec } from './schemas/networking/sidecar.js';
import { workloadGroupSpec } from './schemas/networking/workload-group.js';
import { envoyFilterSpec } from './schemas/networking/envoy-filter.js';
import { proxyConfigSpec } from './schemas/networking/proxy-config.js';
import { peerAuthenticationSpec } from './schemas/security/peer-authentication.js';
import { requestAuthenticationSpec } from './schemas/security/request-authentication.js';
import { telemetrySpec } from './schemas/telemetry/telemetry.js';
import { wasmPluginSpec } from './schemas/extensions/wasm-plugin.js';
import { meshOperatorSpec, meshOperatorStatus } from './schemas/install/mesh-operator.js';

const NETWORKING = { group: 'networking.mesh.io', categories: ['mesh-io', 'networking-mesh-io'] } as const;
const NETWORKING_VERSIONS = { versions: ['v1', 'v1alpha3', 'v1beta1'], storageVersion: 'v1alpha3' } as const;
const SECURITY = {
  group: 'security.mesh.io',
  categories: ['mesh-io', 'security-mesh-io'],
  versions: ['v1', 'v1beta1'],
  storageVersion: 'v1beta1',
} as const;

/**
 * Every mesh.io kind: group, served versions, storage version, names, scope, spec/status schemas and
 * printer columns. The single source for `renderCrds()`, `validateConfig()` and the TypeScript types.
 * NOTE: storage versions follow Istio (networking v1alpha3, security v1beta1, telemetry v1alpha1).
 */
export const KINDS = {
  VirtualService: defineKind({
    kind: 'VirtualService',
    ...NETWORKING,
    ...NETWORKING_VERSIONS,
    plural: 'virtualservices',
    singular: 'virtualservice',
    shortNames: ['vs'],
    scope: 'Namespaced',
    spec: virtualServiceSpec,
    status: meshStatus,
    printerColumns: [
      { name: 'Gateways', type: 'string', jsonPath: '.spec.gateways', description: 'The names of gateways and sidecars that should apply these routes' },
      { name: 'Hosts', type: 'string', jsonPath: '.spec.hosts', description: 'The destination hosts to which traffic is being sent' },
      AGE_COLUMN,
    ],
  }),
  DestinationRule: defineKind({
    kind: 'DestinationRule',
    ...NETWORKING,
    ...NETWORKING_VERSIONS,
    plural: 'destinationrules',
    singular: 'destinationrule',
    shortNames: ['dr'],
    scope: 'Namespaced',
    spec: destinationRuleSpec,
    status: meshStatus,
    printerColumns: [
      { name: 'Host', type: 'string', jsonPath: '.spec.host', description: 'The name of a service from the service registry' },
      AGE_COLUMN,
    ],
  }),
  ServiceEntry: defineKind({
    kind: 'ServiceEntry',
    ...NETWORKING,
    ...NETWORKING_VERSIONS,
    plural: 'serviceentries',
    singular: 'serviceentry',
    shortNames: ['se'],
    scope: 'Namespaced',
    spec: serviceEntrySpec,
    status: meshStatus,
    printerColumns: [
      { name: 'Hosts', type: 'string', jsonPath: '.spec.hosts', description: 'The hosts associated with the ServiceEntry' },
      { name: 'Location', type: 'string', jsonPath: '.spec.location', description: 'Whether the service is external to the mesh or part of the mesh (MESH_EXTERNAL or MESH_INTERNAL)' },
      { name: 'Resolution', type: 'string', jsonPath: '.spec.resolution', description: 'Service resolution mode for the hosts (NONE, STATIC, or DNS)' },
      AGE_COLUMN,
    ],
  }),
  WorkloadEntry: defineKind({
    kind: 'WorkloadEntry',
    ...NETWORKING,
    ...NETWORKING_VERSIONS,
    plural: 'workloadentries',
    singular: 'workloadentry',
    shortNames: ['we'],
    scope: 'Namespaced',
    spec: workloadEntrySpec,
    status: meshStatus,
    printerColumns: [
      AGE_COLUMN,
      { name: 'Address', type: 'string', jsonPath: '.spec.address', description: 'Address associated with the network endpoint.' },
    ],
  }),
  Gateway: defineKind({
    kind: 'Gateway',
    ...NETWORKING,
    ...NETWORKING_VERSIONS,
    plural: 'gateways',
    singular: 'gateway',
    shortNames: ['gw'],
    scope: 'Namespaced',
    spec: gatewaySpec,
    status: meshStatus,
    printerColumns: [],
  }),
  Sidecar: defineKind({
    kind: 'Sidecar',
    ...NETWORKING,
    ...NETWORKING_VERSIONS,
    plural: 'sidecars',
    singular: 'sidecar',
    shortNames: [],
    scope: 'Namespaced',
    spec: sidecarSpec,
    status: meshStatus,
    printerColumns: [],
  }),
  WorkloadGroup: defineKind({
    kind: 'WorkloadGroup',
    ...NETWORKING,
    ...NETWORKING_VERSIONS,
    plural: 'workloadgroups',
    singular: 'workloadgroup',
    shortNames: ['wg'],
    scope: 'Namespaced',
    spec: workloadGroupSpec,
    status: meshStatus,
    printerColumns: [AGE_COLUMN],
  }),
  EnvoyFilter: defineKind({
    kind: 'EnvoyFilter',
    ...NETWORKING,
    versions: ['v1alpha3'],
    storageVersion: 'v1alpha3',
    plural: 'envoyfilters',
    singular: 'envoyfilter',
    shortNames: [],
    scope: 'Namespaced',
    spec: envoyFilterSpec,
    status: meshStatus,
    printerColumns: [],
  }),
  ProxyConfig: defineKind({
    kind: 'ProxyConfig',
    ...NETWORKING,
    versions: ['v1beta1'],
    storageVersion: 'v1beta1',
    plural: 'proxyconfigs',
    singular: 'proxyconfig',
    shortNames: [],
    scope: 'Namespaced',
    spec: proxyConfigSpec,
    status: meshStatus,
    printerColumns: [],
  }),
  AuthorizationPolicy: defineKind({
    kind: 'AuthorizationPolicy',
    ...SECURITY,
    plural: 'authorizationpolicies',
    singular: 'authorizationpolicy',
    shortNames: ['ap'],
    scope: 'Namespaced',
    spec: authorizationPolicySpec,
    status: meshStatus,
    printerColumns: [
      { name: 'Action', type: 'string', jsonPath: '.spec.action', description: 'The operation to take.' },
      AGE_COLUMN,
    ],
  }),
  PeerAuthentication: defineKind({
    kind: 'PeerAuthentication',
    ...SECURITY,
    plural: 'peerauthentications',
    singular: 'peerauthentication',
    shortNames: ['pa'],
    scope: 'Namespaced',
    spec: peerAuthenticationSpec,
    status: meshStatus,
    printerColumns: [
      { name: 'Mode', type: 'string', jsonPath: '.spec.mtls.mode', description: 'Defines the mTLS mode used for peer authentication.' },
      AGE_COLUMN,
    ],
  }),
  RequestAuthentication: defineKind({
    kind: 'RequestAuthentication',
    ...SECURITY,
    plural: 'requestauthentications',
    singular: 'requestauthentication',
    shortNames: ['ra'],
    scope: 'Namespaced',
    spec: requestAuthenticationSpec,
    status: meshStatus,
    printerColumns: [],
  }),
  Telemetry: defineKind({
    kind: 'Telemetry',
    group: 'telemetry.mesh.io',
    categories: ['mesh-io', 'telemetry-mesh-io'],
    versions: ['v1', 'v1alpha1'],
    storageVersion: 'v1alpha1',
    plural: 'telemetries',
    singular: 'telemetry',
    shortNames: ['telemetry'],
    scope: 'Namespaced',
    spec: telemetrySpec,
    status: meshStatus,
    printerColumns: [AGE_COLUMN],
  }),
  WasmPlugin: defineKind({
    kind: 'WasmPlugin',
    group: 'extensions.mesh.io',
    categories: ['mesh-io', 'extensions-mesh-io'],
    versions: ['v1alpha1'],
    storageVersion: 'v1alpha1',
    plural: 'wasmplugins',
    singular: 'wasmplugin',
    shortNames: [],
    scope: 'Namespaced',
    spec: wasmPluginSpec,
    status: meshStatus,
    printerColumns: [AGE_COLUMN],
  }),
  MeshOperator: defineKind({
    kind: 'MeshOperator',
    group: 'install.mesh.io',
    categories: [],
    versions: ['v1alpha1'],
    storageVersion: 'v1alpha1',
    plural: 'meshoperators',
    singular: 'meshoperator',
    shortNames: ['mop', 'mo'],
    scope: 'Namespaced',
    spec: meshOperatorSpec,
    status: meshOperatorStatus,
    printerColumns: [
      { name: 'Revision', type: 'string', jsonPath: '.spec.revision', description: 'Mesh control plane revision' },
      { name: 'Status', type: 'string', jsonPath: '.status.status', description: 'MeshOperator current state' },
      AGE_COLUMN,
    ],
  }),
} as const;

/** A mesh.io kind name. */
export type KindName = keyof typeof KINDS;

/** All kind names, in table order. */
export const KIND_NAMES = Object.keys(KINDS) as KindName[];
