import { AGE_COLUMN, defineKind } from './schema/kind-definition.js';
import { destinationRuleSpec } from './schemas/networking/destination-rule.js';
import { serviceEntrySpec } from './schemas/networking/service-entry.js';
import { virtualServiceSpec } from './schemas/networking/virtual-service.js';
import { workloadEntrySpec } from './schemas/networking/workload-entry.js';
import { authorizationPolicySpec } from './schemas/security/authorization-policy.js';
import { meshStatus } from './schemas/shared/status.js';

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
} as const;

/** A mesh.io kind name. */
export type KindName = keyof typeof KINDS;

/** All kind names, in table order. */
export const KIND_NAMES = Object.keys(KINDS) as KindName[];
