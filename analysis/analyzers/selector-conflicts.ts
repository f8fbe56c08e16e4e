/**
 * The selector analyzers of Sidecar and Telemetry: sidecar.SelectorAnalyzer / telemetry.SelectorAnalyzer
 * (a selector that matches no pod of its namespace: IST0101 `Referenced selector not found`, as Istio
 * reports it; two resources selecting one pod: IST0110 /
 * IST0159) and sidecar.DefaultSelectorAnalyzer / telemetry.DefaultSelectorAnalyzer (several without a
 * selector in one namespace: IST0111 / IST0160). A Sidecar has no effect on ambient workloads, which run
 * without a sidecar proxy: one selecting an ambient pod, or without selector in an ambient namespace, is
 * reported as IST0167 IneffectivePolicy instead (as Istio's sidecar.SelectorAnalyzer does).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES, type MessageType } from '../message-catalogue.js';
import { rec } from '../object-access.js';
import type { Resource } from '../resource.js';
import { matchLabelsOf, selectorString, selects } from '../selectors.js';
import { INJECTION_LABEL, REVISION_LABEL } from './injection-analyzers.js';

/** A pod redirected to the ambient data plane (annotation `ambient.mesh.io/redirection: enabled`). */
function podInAmbientMode(pod: Resource): boolean {
  return pod.annotations['ambient.mesh.io/redirection'] === 'enabled';
}

/** A namespace labelled `mesh.io/dataplane-mode: ambient` and not for sidecar injection (Istio's NamespaceInAmbientMode). */
function namespaceInAmbientMode(ns: Resource | undefined): boolean {
  if (!ns) return false;
  if (ns.labels[INJECTION_LABEL] === 'enabled') return false;
  if ((ns.labels[REVISION_LABEL] ?? '') !== '') return false;
  return ns.labels['mesh.io/dataplane-mode'] === 'ambient';
}

interface SelectorKind {
  readonly kind: string;
  readonly prefix: 'sidecar' | 'telemetry';
  readonly label: string;
  /** The field of `spec` holding the selector. */
  readonly field: 'workloadSelector' | 'selector';
  readonly conflict: MessageType;
  readonly noSelector: MessageType;
  /** Whether the kind has no effect on ambient workloads (IST0167). */
  readonly sidecarOnly: boolean;
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
        if (!found) ctx.report(MESSAGES.ReferencedResourceNotFound, r, 'selector', selectorString(sel));
      }
      const ineffective = new Set<Resource>();
      for (const [pod, list] of byPod) {
        if (k.sidecarOnly && podInAmbientMode(pod)) {
          // NOTE: no conflict on an ambient pod (it runs no sidecar), but each policy selecting it is ineffective.
          for (const r of list) {
            if (ineffective.has(r)) continue;
            ineffective.add(r);
            ctx.report(MESSAGES.IneffectivePolicy, r, 'selected workload is in ambient mode, the policy has no impact');
          }
          continue;
        }
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
    inputs: k.sidecarOnly ? [k.kind, K.Namespace] : [k.kind],
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
        if (k.sidecarOnly && namespaceInAmbientMode(ctx.get(K.Namespace, '', ns))) {
          for (const r of list) ctx.report(MESSAGES.IneffectivePolicy, r, 'namespace is in ambient mode, the policy has no impact');
          continue;
        }
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
  sidecarOnly: true,
};
const TELEMETRY: SelectorKind = {
  kind: K.Telemetry,
  prefix: 'telemetry',
  label: 'telemetry',
  field: 'selector',
  conflict: MESSAGES.ConflictingTelemetryWorkloadSelectors,
  noSelector: MESSAGES.MultipleTelemetriesWithoutWorkloadSelectors,
  sidecarOnly: false,
};

/** sidecar.SelectorAnalyzer. */
export const sidecarSelectorAnalyzer = selectorAnalyzer(SIDECAR);
/** sidecar.DefaultSelectorAnalyzer. */
export const sidecarDefaultSelectorAnalyzer = defaultSelectorAnalyzer(SIDECAR);
/** telemetry.SelectorAnalyzer. */
export const telemetrySelectorAnalyzer = selectorAnalyzer(TELEMETRY);
/** telemetry.DefaultSelectorAnalyzer. */
export const telemetryDefaultSelectorAnalyzer = defaultSelectorAnalyzer(TELEMETRY);
