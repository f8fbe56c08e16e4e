/**
 * serviceentry.ConflictingServiceEntryProtocolAnalyzer: ServiceEntries visible in one namespace (through
 * `exportTo`: `.` is their own namespace, none or `*` every namespace) that define the same host and port
 * with different protocols; the proxy can serve only one, so traffic may use one the user did not expect
 * (IST0177, once per ServiceEntry, naming all of the conflicting ones).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { num, rec, recs, str, strs } from '../object-access.js';
import type { Resource } from '../resource.js';

const ALL = '*';

/** The namespaces a ServiceEntry is visible in, `*` for all. */
function scopes(se: Resource): Set<string> {
  const exportTo = strs(rec(se.obj['spec'])['exportTo']);
  if (exportTo.length === 0 || exportTo.includes(ALL)) return new Set([ALL]);
  return new Set(exportTo.map((e) => (e === '.' ? se.namespace : e)));
}

interface Entry {
  readonly protocol: string;
  readonly se: Resource;
}

/** See the file comment. */
export const conflictingServiceEntryProtocolAnalyzer: Analyzer = {
  name: 'serviceentry.ConflictingServiceEntryProtocolAnalyzer',
  description: 'Checks if multiple ServiceEntries define the same host and port with different protocols',
  inputs: [K.ServiceEntry],
  analyze(ctx) {
    // scope \0 host \0 port -> entries
    const index = new Map<string, Entry[]>();
    for (const se of ctx.all(K.ServiceEntry)) {
      const spec = rec(se.obj['spec']);
      for (const scope of scopes(se)) {
        for (const host of strs(spec['hosts'])) {
          for (const p of recs(spec['ports'])) {
            const port = num(p['number']);
            if (port === undefined) continue;
            const key = [scope, host, String(port)].join('\0');
            const list = index.get(key) ?? [];
            list.push({ protocol: (str(p['protocol']) ?? '').toUpperCase(), se });
            index.set(key, list);
          }
        }
      }
    }
    const reported = new Set<Resource>();
    // NOTE: keys in order, so the arguments a ServiceEntry is reported with do not depend on input order.
    for (const key of [...index.keys()].sort()) {
      const [scope = '', host = '', port = ''] = key.split('\0');
      const entries = [...(index.get(key) ?? []), ...(scope === ALL ? [] : (index.get([ALL, host, port].join('\0')) ?? []))];
      const protocols = [...new Set(entries.map((e) => e.protocol))].sort();
      if (protocols.length < 2) continue;
      const names = [...new Set(entries.map((e) => `${e.se.namespace}/${e.se.name}`))].sort();
      for (const { se } of entries) {
        if (reported.has(se)) continue;
        reported.add(se);
        ctx.report(MESSAGES.ConflictingServiceEntryProtocol, se, names.join(', '), host, Number(port), protocols.join(', '));
      }
    }
  },
};
