/** The differential check's report as text: per proxy, request outcomes side by side, then name-set differences. */
import { explain, type KnownDifference, type ProxyComparison } from './compare-configs.js';

/**
 * Names that differ for reasons found and written down (not bugs of meshd). Each says why; a name that
 * matches none is printed as unexplained.
 */
export const KNOWN_NAME_DIFFERENCES: readonly KnownDifference[] = [
  { pattern: /kubernetes\.default\.svc\.cluster\.local|^10\.96\.0\.1_443$/, why: "istiod also reads the API server's Services (the `kubernetes` Service); meshd runs on files only" },
  { pattern: /^(15090|15021)$|^(0\.0\.0\.0_)?(15090|15021)$/, why: 'meshd sends the Prometheus and health listeners over LDS; istiod puts them in the bootstrap' },
];

/** Formats the comparisons (see the file comment). */
export function formatDiffReport(comparisons: readonly { proxy: string; comparison: ProxyComparison }[]): string {
  const lines: string[] = [];
  let same = 0;
  let total = 0;
  for (const { proxy, comparison } of comparisons) {
    lines.push(`== ${proxy}`);
    for (const o of comparison.outcomes) {
      total++;
      if (o.same) {
        same++;
        lines.push(`  same  ${o.label}: ${o.meshd}`);
      } else {
        lines.push(`  DIFF  ${o.label}:`, `          meshd:  ${o.meshd}`, `          istiod: ${o.istiod}`);
      }
    }
    for (const n of comparison.names) {
      const m = explain(n.onlyMeshd, KNOWN_NAME_DIFFERENCES);
      const i = explain(n.onlyIstiod, KNOWN_NAME_DIFFERENCES);
      lines.push(`  ${n.type}s: ${n.common} in both`);
      if (m.unexplained.length) lines.push(`    only meshd:  ${m.unexplained.join(', ')}`);
      if (i.unexplained.length) lines.push(`    only istiod: ${i.unexplained.join(', ')}`);
      for (const e of [...m.explained.map((x) => `meshd ${x}`), ...i.explained.map((x) => `istiod ${x}`)]) lines.push(`    by design: only ${e}`);
    }
    const parts = [
      ['load assignments', comparison.assignments],
      ['cluster load balancing', comparison.clusterLb],
      ['listener HCM options', comparison.hcm],
      ['cluster TLS secrets and parameters', comparison.clusterTls],
      ['listener TLS parameters', comparison.listenerTls],
      ['listener addresses', comparison.listenerAddresses],
      ['route hash policies and retry host predicates (per virtual host)', comparison.routeHash],
      ['tcp_proxy hash policies (per listener)', comparison.tcpHash],
    ] as const;
    for (const [what, r] of parts) {
      lines.push(`  ${what}: ${r.same} the same, ${r.differ.length} differ`);
      for (const d of r.differ) lines.push(`    DIFF ${d.name}:`, `          meshd:  ${d.meshd}`, `          istiod: ${d.istiod}`);
    }
  }
  lines.push('', `${same} of ${total} requests route the same on both servers`);
  return `${lines.join('\n')}\n`;
}
