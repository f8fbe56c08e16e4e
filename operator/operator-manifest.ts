/**
 * The operator's own manifest, which `meshctl operator init` applies, `operator dump` prints and `operator
 * remove` finds by its labels: Istio's istio-operator chart (namespace, ServiceAccount, ClusterRole and
 * binding, Deployment, metrics Service, the MeshOperator CRD), renamed. NOTE: manifests/ holds no operator
 * chart, so the objects are built here, in this one place; the CRD comes from crds/ (one source).
 */
import { KINDS, renderCrd } from '../crds/index.js';
import { BASE_PROFILE, installLabels, readProfile, REVISION_LABEL, revisionLabelValue, type InstallOwner, type ManifestObject } from '../install/index.js';

/** The component label value of the operator's objects. */
export const OPERATOR_COMPONENT = 'Operator';

/** The port of the operator's self-monitoring (`--monitoring-port`). */
const MONITORING_PORT = 8383;

/** What `operator init|dump` take from their flags. */
export interface OperatorManifestOptions {
  /** `--operatorNamespace`. */
  readonly namespace: string;
  /** `--revision` ('' for the default one). */
  readonly revision: string;
  /** `--hub`; `unknown` (the flag's default) takes the default profile's. */
  readonly hub: string;
  /** `--tag`; `unknown` takes the default profile's. */
  readonly tag: string;
  /** `--imagePullSecrets`. */
  readonly imagePullSecrets: readonly string[];
  /** `--watchedNamespaces`: comma-separated, as given. */
  readonly watchedNamespaces: string;
}

/** The operator's name: `mesh-operator`, `mesh-operator-<revision>` for a revision. */
export function operatorName(revision: string): string {
  return revision === '' || revision === 'default' ? 'mesh-operator' : `mesh-operator-${revision}`;
}

/** The operator's image `<hub>/operator:<tag>`: the flags, or the default profile's hub and tag when they are `unknown` or empty. */
export function operatorImage(o: OperatorManifestOptions): string {
  const profile = readProfile(BASE_PROFILE);
  const pick = (v: string, fallback: unknown): string => (v === '' || v === 'unknown' ? String(fallback ?? '') : v);
  return `${pick(o.hub, profile['hub'])}/operator:${pick(o.tag, profile['tag'])}`;
}

/** The operator's objects, labelled (component `Operator`, the revision), in install order. */
export function operatorManifest(o: OperatorManifestOptions): ManifestObject[] {
  const name = operatorName(o.revision);
  const owner: InstallOwner = { name, namespace: o.namespace, revision: o.revision };
  const labels: Record<string, string> = { ...installLabels(owner, OPERATOR_COMPONENT), app: 'mesh-operator', name };
  const meta = (n: string, namespaced: boolean): Record<string, unknown> => ({ name: n, ...(namespaced ? { namespace: o.namespace } : {}), labels });
  const crd = renderCrd(KINDS.MeshOperator) as unknown as Record<string, unknown>;
  const crdMeta = crd['metadata'] as Record<string, unknown>;
  const objects: Record<string, unknown>[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: o.namespace, labels } },
    { ...crd, metadata: { ...crdMeta, labels: { ...(crdMeta['labels'] as Record<string, string>), ...labels } } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(name, true), ...(o.imagePullSecrets.length > 0 ? { imagePullSecrets: o.imagePullSecrets.map((s) => ({ name: s })) } : {}) },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: meta(name, false),
      // NOTE: as Istio's operator: it installs ClusterRoles, so it needs every permission they grant (or escalate/bind).
      rules: [
        { apiGroups: ['install.mesh.io'], resources: ['meshoperators', 'meshoperators/finalizers', 'meshoperators/status'], verbs: ['*'] },
        { apiGroups: ['admissionregistration.k8s.io', 'apiextensions.k8s.io', 'autoscaling', 'policy', 'rbac.authorization.k8s.io'], resources: ['*'], verbs: ['*'] },
        { apiGroups: ['apps'], resources: ['deployments', 'daemonsets', 'replicasets', 'statefulsets'], verbs: ['*'] },
        { apiGroups: ['monitoring.coreos.com'], resources: ['servicemonitors', 'podmonitors'], verbs: ['get', 'create', 'update', 'patch', 'delete'] },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update', 'patch'] },
        { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
        { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['config.mesh.io', 'security.mesh.io', 'networking.mesh.io', 'telemetry.mesh.io', 'extensions.mesh.io'], resources: ['*'], verbs: ['*'] },
        { apiGroups: [''], resources: ['configmaps', 'endpoints', 'events', 'namespaces', 'nodes', 'pods', 'pods/proxy', 'pods/portforward', 'persistentvolumeclaims', 'secrets', 'services', 'serviceaccounts', 'resourcequotas'], verbs: ['*'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: meta(name, false),
      subjects: [{ kind: 'ServiceAccount', name, namespace: o.namespace }],
      roleRef: { kind: 'ClusterRole', name, apiGroup: 'rbac.authorization.k8s.io' },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(name, true),
      spec: {
        replicas: 1,
        revisionHistoryLimit: 10,
        selector: { matchLabels: { name } },
        template: {
          metadata: { labels: { name, [REVISION_LABEL]: revisionLabelValue(o.revision) } },
          spec: {
            serviceAccountName: name,
            containers: [
              {
                name: 'mesh-operator',
                image: operatorImage(o),
                command: ['operator', 'server'],
                securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, privileged: false, readOnlyRootFilesystem: true, runAsNonRoot: true },
                imagePullPolicy: 'IfNotPresent',
                ports: [{ containerPort: MONITORING_PORT, name: 'http-metrics', protocol: 'TCP' }],
                resources: { limits: { cpu: '200m', memory: '256Mi' }, requests: { cpu: '50m', memory: '128Mi' } },
                env: [{ name: 'MESH_WATCH_NAMESPACE', value: o.watchedNamespaces }],
              },
            ],
            ...(o.imagePullSecrets.length > 0 ? { imagePullSecrets: o.imagePullSecrets.map((s) => ({ name: s })) } : {}),
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(name, true),
      spec: { ports: [{ name: 'http-metrics', port: MONITORING_PORT, targetPort: MONITORING_PORT, protocol: 'TCP' }], selector: { name } },
    },
  ];
  return objects.map((object) => {
    const m = object['metadata'] as { name: string; namespace?: string };
    return { component: OPERATOR_COMPONENT, apiVersion: String(object['apiVersion']), kind: String(object['kind']), name: m.name, namespace: m.namespace ?? '', object };
  });
}
