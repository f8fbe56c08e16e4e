import { arr, bool, obj, str, withRules } from '../../schema/builders.js';
import { CEL, celDuration } from '../shared/istio-cel.js';
import { policyTargetReference, policyTargetReferences } from '../shared/target-ref.js';
import { workloadSelector } from '../shared/workload-selector.js';

/** Istio's JWTRule: how to validate a JWT and where to find it. */
export const jwtRule = obj(
  {
    issuer: str({ minLength: 1 }),
    audiences: arr(str({ minLength: 1 })),
    jwksUri: withRules(str({ maxLength: 2048, minLength: 1 }), CEL.jwksUriScheme),
    /** Deprecated spelling of jwksUri that Istio's CRD still serves. */
    jwks_uri: withRules(str({ maxLength: 2048, minLength: 1 }), CEL.jwksUriScheme),
    jwks: str(),
    fromHeaders: arr(obj({ name: str({ minLength: 1 }), prefix: str() }, ['name'])),
    fromParams: arr(str({ minLength: 1 })),
    outputPayloadToHeader: str(),
    fromCookies: arr(str({ minLength: 1 })),
    forwardOriginalToken: bool(),
    outputClaimToHeaders: arr(obj({ header: str({ minLength: 1, pattern: '^[-_A-Za-z0-9]+$' }), claim: str({ minLength: 1 }) }, ['header', 'claim'])),
    timeout: celDuration(),
  },
  ['issuer'],
  { 'x-kubernetes-validations': [CEL.jwksExclusive] },
);

/** The spec of a RequestAuthentication (security.mesh.io): JWT validation for workloads. */
export const requestAuthenticationSpec = obj(
  {
    selector: workloadSelector,
    targetRef: policyTargetReference,
    targetRefs: policyTargetReferences,
    jwtRules: arr(jwtRule, { maxItems: 4096 }),
  },
  [],
  { 'x-kubernetes-validations': [CEL.targetRefsOrSelector] },
);
