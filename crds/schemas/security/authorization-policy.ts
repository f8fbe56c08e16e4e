import { arr, enumOf, obj, str } from '../../schema/builders.js';
import { CEL } from '../shared/istio-cel.js';
import { policyTargetReference, policyTargetReferences } from '../shared/target-ref.js';
import { workloadSelector } from '../shared/workload-selector.js';

const strings = arr(str());
const serviceAccounts = arr(str({ maxLength: 320 }), { maxItems: 16 });

/** Istio's Source: peer identities, namespaces and IP blocks a request comes from. */
export const source = obj(
  {
    principals: strings,
    notPrincipals: strings,
    requestPrincipals: strings,
    notRequestPrincipals: strings,
    namespaces: strings,
    notNamespaces: strings,
    ipBlocks: strings,
    notIpBlocks: strings,
    remoteIpBlocks: strings,
    notRemoteIpBlocks: strings,
    serviceAccounts,
    notServiceAccounts: serviceAccounts,
  },
  [],
  { 'x-kubernetes-validations': [CEL.serviceAccountsExclusive] },
);

/** Istio's Operation: hosts, ports, methods and paths of a request. */
export const operation = obj({
  hosts: strings,
  notHosts: strings,
  ports: strings,
  notPorts: strings,
  methods: strings,
  notMethods: strings,
  paths: strings,
  notPaths: strings,
});

/** Istio's Condition: an additional `key` with `values`/`notValues`. */
export const condition = obj({ key: str(), values: strings, notValues: strings }, ['key']);

/** Istio's Rule: `from`, `to` and `when`. */
export const authorizationRule = obj({
  from: arr(obj({ source }), { maxItems: 512 }),
  to: arr(obj({ operation })),
  when: arr(condition),
});

/** The spec of an AuthorizationPolicy (security.mesh.io): access control on workloads. */
export const authorizationPolicySpec = obj(
  {
    selector: workloadSelector,
    targetRef: policyTargetReference,
    targetRefs: policyTargetReferences,
    rules: arr(authorizationRule, { maxItems: 512 }),
    action: enumOf(['ALLOW', 'DENY', 'AUDIT', 'CUSTOM']),
    provider: obj({ name: str() }),
  },
  [],
  { 'x-kubernetes-validations': [CEL.targetRefsOrSelector] },
);
