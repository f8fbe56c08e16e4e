import { arr, enumOf, freeForm, intOrString, obj, str } from '../../schema/builders.js';

/** One status condition. */
export const statusCondition = obj({
  lastProbeTime: str({ format: 'date-time' }),
  lastTransitionTime: str({ format: 'date-time' }),
  message: str(),
  observedGeneration: intOrString(),
  reason: str(),
  status: str(),
  type: str(),
});

/**
 * The status shared by mesh.io config kinds (Istio's IstioStatus): conditions, observedGeneration and
 * analyzer messages. Unknown fields are kept (written by newer controllers).
 */
export const meshStatus = {
  ...obj({
    conditions: arr(statusCondition),
    observedGeneration: intOrString(),
    validationMessages: arr(
      obj({
        documentationUrl: str(),
        level: enumOf(['UNKNOWN', 'ERROR', 'WARNING', 'INFO']),
        type: obj({ code: str(), name: str() }),
      }),
    ),
  }),
  'x-kubernetes-preserve-unknown-fields': true,
} as const;

/** Free-form status (used where a kind has its own status shape we do not model). */
export const freeStatus = freeForm();
