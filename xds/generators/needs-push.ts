/**
 * The shared `needsPush` rule: a full push that names configs is needed for a type unless every
 * named config is of a kind that cannot affect that type; a push that names nothing is needed by all
 * types; an endpoint-only push is needed only by EDS.
 */
import type { PushRequest } from '../../core/index.js';

/** Whether a push may change resources of a type whose unaffected kinds are `unaffected`. */
export function fullPushAffects(push: PushRequest, unaffected: ReadonlySet<string>): boolean {
  if (push.forced || push.reasons.has('proxyrequest') || push.reasons.has('debug')) return true;
  if (!push.full) return false;
  if (push.configsUpdated.size === 0) return true;
  for (const key of push.configsUpdated) {
    const kind = key.slice(0, key.indexOf('/'));
    if (!unaffected.has(kind)) return true;
  }
  return false;
}
