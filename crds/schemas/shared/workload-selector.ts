import { map, obj, str } from '../../schema/builders.js';

/** Label values of selectors: strings, no wildcard. */
export const labelMap = map(str({ maxLength: 63 }));

/** Istio's WorkloadSelector (`selector`/`workloadSelector` of policies): `matchLabels`. */
export const workloadSelector = obj({ matchLabels: map(str({ maxLength: 63 })) }, [], {
  description: 'Labels that select the pods/VMs the resource applies to.',
});

/** The EnvoyFilter/Sidecar flavour of WorkloadSelector: `labels`. */
export const workloadLabelsSelector = obj({ labels: map(str({ maxLength: 63 })) });
