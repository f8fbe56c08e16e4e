import { arr, enumOf, obj, portNumber, str, uint32, withRules } from '../../schema/builders.js';
import { CEL } from '../shared/istio-cel.js';
import { workloadLabelsSelector } from '../shared/workload-selector.js';
import { workloadEntrySpec } from './workload-entry.js';

/** Istio's ServicePort: a port exposed by a ServiceEntry. */
export const servicePort = obj(
  {
    number: withRules(portNumber(), CEL.port),
    protocol: str({ maxLength: 256 }),
    name: str({ maxLength: 256 }),
    targetPort: withRules(uint32(), CEL.port),
  },
  ['number', 'name'],
);

/** The spec of a ServiceEntry (networking.mesh.io): adds entries to the service registry. */
export const serviceEntrySpec = obj(
  {
    hosts: arr(withRules(str(), CEL.hostNotWildcard), { minItems: 1, maxItems: 256 }),
    addresses: arr(str({ maxLength: 64 }), { maxItems: 256 }),
    ports: {
      ...arr(servicePort, { maxItems: 256, 'x-kubernetes-validations': [CEL.portNumbersUnique] }),
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    },
    location: enumOf(['MESH_EXTERNAL', 'MESH_INTERNAL']),
    resolution: enumOf(['NONE', 'STATIC', 'DNS', 'DNS_ROUND_ROBIN']),
    endpoints: arr(workloadEntrySpec, { maxItems: 4096 }),
    workloadSelector: workloadLabelsSelector,
    exportTo: arr(str()),
    subjectAltNames: arr(str()),
  },
  ['hosts'],
  {
    'x-kubernetes-validations': [
      CEL.serviceEntrySelectorOrEndpoints,
      CEL.serviceEntryCidrResolution,
      CEL.serviceEntryNoneEndpoints,
      CEL.serviceEntryDnsRoundRobin,
    ],
  },
);
