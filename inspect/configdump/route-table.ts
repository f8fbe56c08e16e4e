/** proxy-config routes: istioctl's columns `NAME  VHOST NAME  DOMAINS  MATCH  VIRTUAL SERVICE` (verbose). */
import { configRef, type Json } from './config-dump.js';
import { formatTable } from './text-table.js';

/** Filters of `proxy-config routes`. */
export interface RouteFilter {
  readonly name?: string;
}

function arr(v: unknown): Json[] {
  return Array.isArray(v) ? (v as Json[]) : [];
}

/** The route configurations named `name` (all when empty). */
export function filterRoutes(routes: readonly Json[], f: RouteFilter): Json[] {
  return routes.filter((r) => !f.name || r['name'] === f.name);
}

/**
 * The domains column as istioctl writes it: names without a port and not IP addresses, each name that only
 * expands a shorter one (`reviews.default.svc` of `reviews`) dropped, the first two and a count of the rest.
 */
export function describeDomains(domains: readonly string[]): string {
  if (domains.length <= 1) return domains[0] ?? '';
  const names = domains.filter((d) => !/:\d+$/.test(d) && !/^[\d.]+$/.test(d) && !d.startsWith('['));
  const kept = names.filter((d) => !names.some((other) => other !== d && d.startsWith(`${other}.`)));
  const shown = kept.slice(0, 2);
  return kept.length > 2 ? `${shown.join(', ')} + ${kept.length - 2} more...` : shown.join(', ');
}

/** The match column: `/*` for prefix `/`, `p*` for a prefix, the path, or the regex; headers appended. */
export function describeMatch(match: Json | undefined): string {
  if (!match) return '';
  let s = '';
  if (typeof match['prefix'] === 'string') s = `${match['prefix']}*`;
  else if (typeof match['path'] === 'string') s = match['path'];
  else if (typeof match['path_separated_prefix'] === 'string') s = `${match['path_separated_prefix']}/*`;
  else if (match['safe_regex']) s = String((match['safe_regex'] as Json)['regex'] ?? '');
  for (const h of arr(match['headers'])) {
    const exact = (h['string_match'] as Json | undefined)?.['exact'] ?? h['exact_match'];
    s += exact === undefined ? ` (${String(h['name'])})` : ` (${String(h['name'])}=${String(exact)})`;
  }
  return s;
}

/** The verbose table: one row per route of each virtual host; non-verbose: one row per configuration. */
export function routeTable(routes: readonly Json[], verbose: boolean): string {
  if (!verbose) {
    return formatTable(['NAME', 'VIRTUAL HOSTS'], routes.map((r) => [String(r['name'] ?? ''), String(arr(r['virtual_hosts']).length)]));
  }
  const rows: string[][] = [];
  for (const r of routes) {
    for (const vh of arr(r['virtual_hosts'])) {
      const domains = describeDomains(arr(vh['domains']) as unknown as string[]);
      for (const rt of arr(vh['routes'])) {
        const vs = configRef(rt['metadata']) || (rt['direct_response'] ? String((rt['direct_response'] as Json)['status'] ?? '') : '');
        rows.push([String(r['name'] ?? ''), String(vh['name'] ?? ''), domains, describeMatch(rt['match'] as Json | undefined), vs]);
      }
    }
  }
  return formatTable(['NAME', 'VHOST NAME', 'DOMAINS', 'MATCH', 'VIRTUAL SERVICE'], rows);
}
