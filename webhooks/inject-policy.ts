/**
 * Whether a pod is injected, and why: Istio's `injectRequired`, renamed. Namespace selection happens in the
 * API server (the webhook configurations' selectors, see webhook-configurations.ts); this decides the rest.
 */
import { labelSelectorMatches } from '../core/index.js';
import type { InjectionConfig, LabelSelector } from './injection-config.js';

/** The label (preferred) and annotation a pod opts in or out with. */
export const SIDECAR_INJECT = 'sidecar.mesh.io/inject';
/** The annotation an injected pod carries (JSON: containers, volumes, revision). */
export const SIDECAR_STATUS = 'sidecar.mesh.io/status';
/** Namespaces never injected. */
export const IGNORED_NAMESPACES: readonly string[] = ['kube-system', 'kube-public'];

/** Pod metadata and the spec fields the policy reads. */
export interface PolicyInput {
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly hostNetwork: boolean;
}

/** The decision and what made it. */
export interface InjectDecision {
  readonly inject: boolean;
  /** One sentence naming the label, annotation, selector or policy that decided. */
  readonly reason: string;
}

/** True if `labels` match a Kubernetes label selector (an empty selector matches nothing here, as in Istio). */
export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  if (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0) return false;
  return labelSelectorMatches(selector, labels);
}

function describeSelector(s: LabelSelector): string {
  const parts = [
    ...Object.entries(s.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(s.matchExpressions ?? []).map((e) => `${e.key} ${e.operator}${e.values && e.values.length > 0 ? ` (${e.values.join(',')})` : ''}`),
  ];
  return parts.join(', ');
}

/** Decides injection for a pod as Istio's injector does (label over annotation, then selectors, then policy). */
export function injectRequired(config: InjectionConfig, pod: PolicyInput): InjectDecision {
  if (pod.hostNetwork) return { inject: false, reason: 'the pod uses the host network (spec.hostNetwork)' };
  if (IGNORED_NAMESPACES.includes(pod.namespace)) return { inject: false, reason: `namespace ${pod.namespace} is never injected` };
  if (pod.annotations[SIDECAR_STATUS] !== undefined) return { inject: false, reason: `the pod is already injected (annotation ${SIDECAR_STATUS})` };
  let value = pod.annotations[SIDECAR_INJECT];
  let source = value === undefined ? undefined : `annotation ${SIDECAR_INJECT}=${value}`;
  if (Object.hasOwn(pod.labels, SIDECAR_INJECT)) {
    value = pod.labels[SIDECAR_INJECT];
    source = `label ${SIDECAR_INJECT}=${value}`;
  }
  const v = (value ?? '').toLowerCase();
  if (v !== '') {
    const yes = ['y', 'yes', 'true', 'on'].includes(v);
    if (config.policy === 'disabled' || config.policy === 'enabled') return { inject: yes, reason: `the pod has ${source!}` };
  }
  for (const s of config.neverInjectSelector) {
    if (selectorMatches(s, pod.labels)) return { inject: false, reason: `the pod's labels match neverInjectSelector {${describeSelector(s)}}` };
  }
  for (const s of config.alwaysInjectSelector) {
    if (selectorMatches(s, pod.labels)) return { inject: true, reason: `the pod's labels match alwaysInjectSelector {${describeSelector(s)}}` };
  }
  return config.policy === 'enabled'
    ? { inject: true, reason: 'the injection policy is enabled and the pod does not opt out' }
    : { inject: false, reason: `the injection policy is disabled and the pod does not opt in (${SIDECAR_INJECT}=true)` };
}
