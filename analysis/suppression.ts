/** `-S code=resource` suppressions, with `*` wildcards, and the per-resource suppression annotation. */
import type { Diagnostic } from './diagnostic.js';
import { friendlyName, legacyName } from './resource.js';

/** The annotation that suppresses codes on one resource (comma-separated codes, or `*`). */
export const SUPPRESS_ANNOTATION = 'galley.mesh.io/analyze-suppress';

/** One parsed `-S` value. */
export interface Suppression {
  readonly code: string;
  /** A resource name pattern (`Kind namespace/name`, `Kind name.namespace`), `*` for any run of characters. */
  readonly resource: string;
}

/** Thrown for a `-S` value that is not `<code>=<resource>`. */
export class SuppressionError extends Error {
  override readonly name = 'SuppressionError';
}

/** Parses `-S` values (`IST0102=Namespace frod`, `IST0107=Pod *.baz`). */
export function parseSuppressions(values: readonly string[]): Suppression[] {
  return values.map((v) => {
    const eq = v.indexOf('=');
    const code = eq < 0 ? '' : v.slice(0, eq).trim();
    const resource = eq < 0 ? '' : v.slice(eq + 1).trim();
    if (code === '' || resource === '') {
      throw new SuppressionError(`--suppress "${v}": expected <code>=<resource>, e.g. "IST0102=DestinationRule primary-dr.default" or "IST0102=DestinationRule *"`);
    }
    return { code, resource };
  });
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

/** True when a suppression or the resource's annotation hides this finding. */
export function isSuppressed(d: Diagnostic, suppressions: readonly Suppression[]): boolean {
  const r = d.resource;
  if (r) {
    const ann = r.annotations[SUPPRESS_ANNOTATION];
    if (ann !== undefined && (ann.trim() === '*' || ann.split(',').some((c) => c.trim() === d.type.code))) return true;
  }
  for (const s of suppressions) {
    if (s.code !== d.type.code && s.code !== '*') continue;
    if (s.resource === '*') return true;
    if (!r) continue;
    const re = globToRegExp(s.resource);
    if (re.test(friendlyName(r)) || re.test(legacyName(r))) return true;
  }
  return false;
}
