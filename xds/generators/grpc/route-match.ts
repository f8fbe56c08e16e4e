/**
 * What the route builders of proxyless gRPC clients (route-builder.ts) and of sidecars and routers
 * (sidecar/http-routes.ts) read alike from a VirtualService match entry: string matchers and header matchers.
 */
import type { HTTPMatchRequest, StringMatch } from '../../../crds/index.js';
import type { HeaderMatcher, StringMatcher } from '../../envoy-types/index.js';

/** Envoy's StringMatcher of an Istio StringMatch (exact, prefix or regex); undefined when it sets none. */
export function stringMatcher(m: StringMatch): StringMatcher | undefined {
  if (m.exact !== undefined) return { exact: m.exact };
  if (m.prefix !== undefined) return { prefix: m.prefix };
  if (m.regex !== undefined) return { safeRegex: { regex: m.regex } };
  return undefined;
}

/** The pseudo-headers a match entry's fields stand for. */
const PSEUDO_HEADERS = { ':method': 'method', ':authority': 'authority', ':scheme': 'scheme' } as const;

/**
 * The header matchers of a match entry: the `pseudo` headers its fields set (`:method` from `method`, ...), then
 * `headers` (a matcher that sets nothing: the header is present), then `withoutHeaders` (inverted).
 */
export function headerMatchers(m: HTTPMatchRequest, pseudo: readonly (keyof typeof PSEUDO_HEADERS)[]): HeaderMatcher[] {
  const headers: HeaderMatcher[] = [];
  for (const name of pseudo) {
    const sm = m[PSEUDO_HEADERS[name]];
    const stringMatch = sm ? stringMatcher(sm) : undefined;
    if (stringMatch) headers.push({ name, stringMatch });
  }
  for (const [name, sm] of Object.entries(m.headers ?? {})) {
    const stringMatch = stringMatcher(sm);
    headers.push(stringMatch ? { name, stringMatch } : { name, presentMatch: true });
  }
  for (const [name, sm] of Object.entries(m.withoutHeaders ?? {})) {
    const stringMatch = stringMatcher(sm);
    headers.push(stringMatch ? { name, stringMatch, invertMatch: true } : { name, presentMatch: true, invertMatch: true });
  }
  return headers;
}
