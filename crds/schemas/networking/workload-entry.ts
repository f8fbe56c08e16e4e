import { map, obj, str, uint32, withRules } from '../../schema/builders.js';
import { CEL } from '../shared/istio-cel.js';

/** The fields of a WorkloadEntry (its spec, a ServiceEntry endpoint, a WorkloadGroup template). */
const workloadEntryFields = {
  address: withRules(str({ maxLength: 256 }), CEL.udsAbsolute, CEL.udsNotDir),
  ports: map(withRules(uint32(), CEL.port), { maxProperties: 128, 'x-kubernetes-validations': [CEL.portNames] }),
  labels: map(str(), { maxProperties: 256 }),
  network: str({ maxLength: 2048 }),
  locality: str({ maxLength: 2048 }),
  weight: uint32(),
  serviceAccount: str({ maxLength: 253 }),
} as const;

/** The spec of a WorkloadEntry (networking.mesh.io): a non-Kubernetes workload such as a VM; also a ServiceEntry endpoint. */
export const workloadEntrySpec = obj(workloadEntryFields, [], { 'x-kubernetes-validations': [CEL.addressRequired, CEL.udsNoPorts] });

/** The WorkloadEntry of a WorkloadGroup `template`: the address comes from the registering workload. */
export const workloadEntryTemplate = obj(workloadEntryFields, [], { 'x-kubernetes-validations': [CEL.udsNoPorts] });
