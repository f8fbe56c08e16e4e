import { arr, bool, duration, obj, str } from '../../schema/builders.js';
import { policyTargetReference, policyTargetReferences } from '../shared/target-ref.js';
import { workloadSelector } from '../shared/workload-selector.js';

/** Istio's JWTRule: how to validate a JWT and where to find it. */
export const jwtRule = obj(
  {
    issuer: str({ minLength: 1 }),
    audiences: arr(str({ minLength: 1 })),
    jwksUri: str({ maxLength: 2048, minLength: 1 }),
    /** Deprecated spelling of jwksUri that Istio's CRD still serves. */
    jwks_uri: str({ maxLength: 2048, minLength: 1 }),
    jwks: str(),
    fromHeaders: arr(obj({ name: str({ minLength: 1 }), prefix: str() }, ['name'])),
    fromParams: arr(str({ minLength: 1 })),
    outputPayloadToHeader: str(),
    fromCookies: arr(str({ minLength: 1 })),
    forwardOriginalToken: bool(),
    outputClaimToHeaders: arr(obj({ header: str(), claim: str() })),
    timeout: duration(),
  },
  ['issuer'],
);

/** The spec of a RequestAuthentication (security.mesh.io): JWT validation for workloads. */
export const requestAuthenticationSpec = obj({
  selector: workloadSelector,
  targetRef: policyTargetReference,
  targetRefs: policyTargetReferences,
  jwtRules: arr(jwtRule, { maxItems: 4096 }),
});
