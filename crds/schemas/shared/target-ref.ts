import { arr, obj, str, withRules } from '../../schema/builders.js';
import { CEL } from './istio-cel.js';

/** Istio's PolicyTargetReference: the resource (e.g. a Gateway or Service) a policy attaches to. */
export const policyTargetReference = obj(
  {
    group: str({ maxLength: 253, pattern: '^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$' }),
    kind: str({ minLength: 1, maxLength: 63, pattern: '^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$' }),
    name: str({ minLength: 1, maxLength: 253 }),
    namespace: withRules(str(), CEL.targetRefSameNamespace),
  },
  ['kind', 'name'],
);

/** `targetRefs`: up to 16 references. */
export const policyTargetReferences = arr(policyTargetReference, { maxItems: 16 });
