import { map, obj, str, uint32 } from '../../schema/builders.js';

/** The spec of a WorkloadEntry (networking.mesh.io): a non-Kubernetes workload such as a VM. */
export const workloadEntrySpec = obj({
  address: str({ maxLength: 256 }),
  ports: map(uint32()),
  labels: map(str()),
  network: str(),
  locality: str(),
  weight: uint32(),
  serviceAccount: str(),
});
