import { map, obj, str, withRules } from '../../schema/builders.js';
import { CEL } from './istio-cel.js';

/** Label values of selectors: strings, no wildcard. */
export const labelMap = map(str({ maxLength: 63 }));

/** Istio's WorkloadSelector (`selector`/`workloadSelector` of policies): `matchLabels`. */
export const workloadSelector = obj(
  {
    matchLabels: map(withRules(str({ maxLength: 63 }), CEL.matchLabelValueWildcard), {
      maxProperties: 4096,
      'x-kubernetes-validations': [CEL.matchLabelKeyWildcard, CEL.matchLabelKeyEmpty],
    }),
  },
  [],
  {
  description: 'Labels that select the pods/VMs the resource applies to.',
});

/** The EnvoyFilter/Sidecar flavour of WorkloadSelector: `labels`. */
export const workloadLabelsSelector = obj({ labels: map(withRules(str({ maxLength: 63 }), CEL.selectorLabelWildcard), { maxProperties: 256 }) });
