import { arr, enumOf, obj, portNumber, str, uint32 } from '../../schema/builders.js';
import { workloadLabelsSelector } from '../shared/workload-selector.js';
import { workloadEntrySpec } from './workload-entry.js';

/** Istio's ServicePort: a port exposed by a ServiceEntry. */
export const servicePort = obj(
  { number: portNumber(), protocol: str(), name: str(), targetPort: uint32() },
  ['number', 'name'],
);

/** The spec of a ServiceEntry (networking.mesh.io): adds entries to the service registry. */
export const serviceEntrySpec = obj(
  {
    hosts: arr(str()),
    addresses: arr(str()),
    ports: arr(servicePort),
    location: enumOf(['MESH_EXTERNAL', 'MESH_INTERNAL']),
    resolution: enumOf(['NONE', 'STATIC', 'DNS', 'DNS_ROUND_ROBIN']),
    endpoints: arr(workloadEntrySpec),
    workloadSelector: workloadLabelsSelector,
    exportTo: arr(str()),
    subjectAltNames: arr(str()),
  },
  ['hosts'],
);
