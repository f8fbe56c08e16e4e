/**
 * From meshd's name table (NDS) to the names the DNS proxy answers: every host as meshd sent it and, for an
 * orchestrator service, the forms a resolver asks with its search list: `name.namespace`,
 * `name.namespace.svc`, and the bare `name` when the service is in the proxy's own namespace.
 */
import type { NameTable } from './dns-proxy.js';

/** One entry of the NDS table as decoded (camelCase; empty fields may be absent). */
export interface NameInfo {
  readonly ips?: readonly string[];
  readonly registry?: string;
  readonly shortname?: string;
  readonly namespace?: string;
  readonly altHosts?: readonly string[];
}

/** The DNS proxy's table for a proxy in `proxyNamespace` (names lower-cased, as queries are). */
export function dnsNameTable(table: Readonly<Record<string, NameInfo>>, proxyNamespace: string): NameTable {
  const out = new Map<string, readonly string[]>();
  const put = (name: string, ips: readonly string[]): void => {
    const key = name.toLowerCase().replace(/\.$/, '');
    if (!out.has(key)) out.set(key, ips);
  };
  for (const [host, info] of Object.entries(table)) {
    const ips = info.ips ?? [];
    if (ips.length === 0) continue;
    put(host, ips);
    for (const alt of info.altHosts ?? []) put(alt, ips);
  }
  // NOTE: the short forms after every full host name, so a real host always wins over a short form.
  for (const info of Object.values(table)) {
    const ips = info.ips ?? [];
    if (info.registry !== 'Kubernetes' || !info.shortname || !info.namespace || ips.length === 0) continue;
    put(`${info.shortname}.${info.namespace}`, ips);
    put(`${info.shortname}.${info.namespace}.svc`, ips);
    if (info.namespace === proxyNamespace) put(info.shortname, ips);
  }
  return out;
}
