/**
 * The selector analyzers of Sidecar and Telemetry: sidecar.SelectorAnalyzer / telemetry.SelectorAnalyzer
 * (a selector that matches no pod of its namespace: IST0127; two resources selecting one pod: IST0110 /
 * IST0159) and sidecar.DefaultSelectorAnalyzer / telemetry.DefaultSelectorAnalyzer (several without a
 * selector in one namespace: IST0111 / IST0160).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES, type MessageType } from '../message-catalogue.js';
import { rec } from '../object-access.js';
import type { Resource } from '../resource.js';
import { matchLabelsOf, selectorString, selects } from '../selectors.js';

interface SelectorKind {
  readonly kind: string;
  readonly prefix: 'sidecar' | 'telemetry';
  readonly label: string;
  /** The field of `spec` holding the selector. */
  readonly field: 'workloadSelector' | 'selector';
  readonly conflict: MessageType;
  readonly noSelector: MessageType;
}

function selectorAnalyzer(k: SelectorKind): Analyzer {
  return {
    name: `${k.prefix}.SelectorAnalyzer`,
    description: `Validates that ${k.label}s that define a workload selector match at least one pod, and that there aren't multiple ${k.label} resources that select overlapping pods`,
    inputs: [k.kind, K.Pod],
    analyze(ctx) {
      const pods = ctx.pods();
      const workloads = ctx.workloads();
      const byPod = new Map<Resource, Resource[]>();
      for (const r of ctx.all(k.kind)) {
        const sel = matchLabelsOf(rec(r.obj['spec'])[k.field]);
        if (!sel || Object.keys(sel).length === 0) continue;
        let found = false;
        for (const p of pods) {
          if (p.namespace !== r.namespace || !selects(sel, p.labels)) continue;
          found = true;
          const list = byPod.get(p.resource);
          if (list) list.push(r);
          else byPod.set(p.resource, [r]);
        }
        found ||= workloads.some((w) => w.namespace === r.namespace && selects(sel, w.labels));
        if (!found) ctx.report(MESSAGES.NoMatchingWorkloadsFound, r, selectorString(sel));
      }
      for (const [pod, list] of byPod) {
        if (list.length < 2) continue;
        const names = list.map((r) => r.name);
        for (const r of list) ctx.report(k.conflict, r, names, pod.namespace, pod.name);
      }
    },
  };
}

function defaultSelectorAnalyzer(k: SelectorKind): Analyzer {
  return {
    name: `${k.prefix}.DefaultSelectorAnalyzer`,
    description: `Validates that there aren't multiple ${k.label} resources that have no selector`,
    inputs: [k.kind],
    analyze(ctx) {
      const byNs = new Map<string, Resource[]>();
      for (const r of ctx.all(k.kind)) {
        const sel = matchLabelsOf(rec(r.obj['spec'])[k.field]);
        if (sel && Object.keys(sel).length > 0) continue;
        const list = byNs.get(r.namespace);
        if (list) list.push(r);
        else byNs.set(r.namespace, [r]);
      }
      for (const [ns, list] of byNs) {
        if (list.length < 2) continue;
        const names = list.map((r) => r.name);
        for (const r of list) ctx.report(k.noSelector, r, names, ns);
      }
    },
  };
}

const SIDECAR: SelectorKind = {
  kind: K.Sidecar,
  prefix: 'sidecar',
  label: 'sidecar',
  field: 'workloadSelector',
  conflict: MESSAGES.ConflictingSidecarWorkloadSelectors,
  noSelector: MESSAGES.MultipleSidecarsWithoutWorkloadSelectors,
};
const TELEMETRY: SelectorKind = {
  kind: K.Telemetry,
  prefix: 'telemetry',
  label: 'telemetry',
  field: 'selector',
  conflict: MESSAGES.ConflictingTelemetryWorkloadSelectors,
  noSelector: MESSAGES.MultipleTelemetriesWithoutWorkloadSelectors,
};

/** sidecar.SelectorAnalyzer. */
export const sidecarSelectorAnalyzer = selectorAnalyzer(SIDECAR);
/** sidecar.DefaultSelectorAnalyzer. */
export const sidecarDefaultSelectorAnalyzer = defaultSelectorAnalyzer(SIDECAR);
/** telemetry.SelectorAnalyzer. */
export const telemetrySelectorAnalyzer = selectorAnalyzer(TELEMETRY);
/** telemetry.DefaultSelectorAnalyzer. */
export const telemetryDefaultSelectorAnalyzer = defaultSelectorAnalyzer(TELEMETRY);
