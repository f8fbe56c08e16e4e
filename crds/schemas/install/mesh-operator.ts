import { arr, bool, enumOf, freeForm, intOrString, map, obj, str } from '../../schema/builders.js';

const componentCommon = {
  enabled: bool({ nullable: true }),
  namespace: str(),
  hub: str(),
  tag: intOrString(),
  k8s: freeForm({ description: 'Orchestrator resource settings (free-form).' }),
} as const;

/** A single-instance component (base, pilot, cni, ztunnel). */
export const componentSpec = obj(componentCommon);

/** A gateway component: named, with labels. */
export const gatewayComponentSpec = obj({ ...componentCommon, name: str(), label: map(str()) });

/** The spec of a MeshOperator (install.mesh.io, Istio's IstioOperator v1alpha1). */
export const meshOperatorSpec = obj({
  profile: str(),
  installPackagePath: str(),
  hub: str(),
  tag: intOrString(),
  revision: str(),
  namespace: str(),
  compatibilityVersion: str(),
  meshConfig: freeForm({ description: 'The mesh config (free-form).' }),
  components: obj({
    base: componentSpec,
    pilot: componentSpec,
    cni: componentSpec,
    ztunnel: componentSpec,
    ingressGateways: arr(gatewayComponentSpec),
    egressGateways: arr(gatewayComponentSpec),
  }),
  values: freeForm({ description: 'Helm values (free-form).' }),
  unvalidatedValues: freeForm({ description: 'Helm values passed through without validation (free-form).' }),
});

/** Install status values of a MeshOperator and its components. */
export const INSTALL_STATUSES = ['NONE', 'UPDATING', 'RECONCILING', 'HEALTHY', 'ERROR', 'ACTION_REQUIRED'] as const;

/** The status of a MeshOperator: overall and per component. */
export const meshOperatorStatus = {
  ...obj({
    status: enumOf(INSTALL_STATUSES),
    message: str(),
    componentStatus: map(obj({ status: enumOf(INSTALL_STATUSES), error: str() })),
  }),
  'x-kubernetes-preserve-unknown-fields': true,
} as const;
