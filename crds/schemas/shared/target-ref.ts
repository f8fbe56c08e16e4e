import { arr, obj, str } from '../../schema/builders.js';

/** Istio's PolicyTargetReference: the resource (e.g. a Gateway or Service) a policy attaches to. */
export const policyTargetReference = obj(
  {
    group: str({ maxLength: 253 }),
    kind: str({ minLength: 1, maxLength: 63 }),
    name: str({ minLength: 1, maxLength: 253 }),
    namespace: str(),
  },
  ['kind', 'name'],
);

/** `targetRefs`: up to 16 references. */
export const policyTargetReferences = arr(policyTargetReference, { maxItems: 16 });
