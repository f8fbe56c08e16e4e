/** An API resource the orchestrator serves: enough to build its list and watch paths. */
export interface OrchResource {
  /** API group; `''` for the core group. */
  readonly group: string;
  readonly version: string;
  /** Lower-case plural used in paths, e.g. `pods`. */
  readonly plural: string;
  /** The object kind, e.g. `Pod`. */
  readonly kind: string;
  /** Whether objects live in namespaces. */
  readonly namespaced: boolean;
}

/** The built-in resources mesh watches. CRD kinds are described the same way by the code that owns them. */
export const ORCH_RESOURCES = {
  namespaces: { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false },
  nodes: { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false },
  pods: { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true },
  services: { group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true },
  configMaps: { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true },
  secrets: { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true },
  serviceAccounts: { group: '', version: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  endpointSlices: { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', namespaced: true },
  mutatingWebhookConfigurations: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural: 'mutatingwebhookconfigurations',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
  },
  validatingWebhookConfigurations: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
  },
  customResourceDefinitions: {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
  },
} as const satisfies Record<string, OrchResource>;

/**
 * The collection path of a resource: `/api/v1/pods`, `/api/v1/namespaces/ns/pods`,
 * `/apis/discovery.k8s.io/v1/endpointslices`. `namespace` is ignored for cluster-scoped resources.
 */
export function resourcePath(resource: OrchResource, namespace?: string): string {
  const prefix = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const scope = resource.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${prefix}${scope}/${resource.plural}`;
}

/** The path of one object of a resource. */
export function objectPath(resource: OrchResource, name: string, namespace?: string): string {
  if (resource.namespaced && !namespace) {
    throw new Error(`${resource.kind} ${name}: a namespace is required for a namespaced resource`);
  }
  return `${resourcePath(resource, namespace)}/${encodeURIComponent(name)}`;
}

/** The cache key of an object: `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(object: { metadata?: { name?: string; namespace?: string } }): string {
  const name = object.metadata?.name ?? '';
  const namespace = object.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}
