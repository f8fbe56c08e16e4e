import { childPath, type IssueCollector } from '../issue.js';
import { checkExportTo } from '../values.js';

/** Reports `problem` at `path` when it is defined. */
export function report(issues: IssueCollector, path: string, problem: string | undefined): void {
  if (problem !== undefined) issues.error(path, problem);
}

/** Checks an `exportTo` list when present. */
export function checkExportToField(values: readonly string[] | undefined, path: string, issues: IssueCollector): void {
  if (values !== undefined) report(issues, path, checkExportTo(values));
}

/**
 * Istio's CEL rules on a `matchLabels` map (WorkloadSelector of policies, DestinationRule): keys not
 * empty and without `*`, values without `*`, with Istio's messages.
 */
export function checkMatchLabels(matchLabels: Readonly<Record<string, string>> | undefined, path: string, issues: IssueCollector): void {
  for (const [key, value] of Object.entries(matchLabels ?? {})) {
    const at = childPath(path, key);
    if (key === '') issues.error(at, 'key must not be empty');
    if (key.includes('*')) issues.error(at, 'wildcard not allowed in label key match');
    if (typeof value === 'string' && value.includes('*')) issues.error(at, 'wildcard not allowed in label value match');
  }
}

/** Istio's CEL rule on a `labels` selector (ServiceEntry, Sidecar, EnvoyFilter workloadSelector): values without `*`. */
export function checkSelectorLabels(labels: Readonly<Record<string, string>> | undefined, path: string, issues: IssueCollector): void {
  for (const [key, value] of Object.entries(labels ?? {})) {
    if (typeof value === 'string' && value.includes('*')) issues.error(childPath(path, key), 'wildcard is not supported in selector');
  }
}

/** Istio's CEL rule on a policy target reference's namespace: cross-namespace references are refused. */
export function checkTargetRefNamespace(ref: { namespace?: string } | undefined, path: string, issues: IssueCollector): void {
  if (ref?.namespace !== undefined && ref.namespace !== '') {
    issues.error(childPath(path, 'namespace'), `cross namespace referencing is not currently supported (got namespace "${ref.namespace}")`);
  }
}

/**
 * Checks a `selector`/`targetRef`/`targetRefs` triple: only one of them may be set (Istio's message
 * names targetRefs and selector), the selector's labels, and no cross-namespace target.
 */
export function checkPolicyAttachment(
  spec: { selector?: { matchLabels?: Record<string, string> }; targetRef?: { namespace?: string }; targetRefs?: readonly { namespace?: string }[] },
  path: string,
  issues: IssueCollector,
): void {
  const set = [spec.selector !== undefined, spec.targetRef !== undefined, spec.targetRefs !== undefined].filter(Boolean);
  if (set.length > 1) issues.error(path, 'only one of targetRefs or selector can be set');
  checkMatchLabels(spec.selector?.matchLabels, childPath(childPath(path, 'selector'), 'matchLabels'), issues);
  checkTargetRefNamespace(spec.targetRef, childPath(path, 'targetRef'), issues);
  spec.targetRefs?.forEach((r, i) => checkTargetRefNamespace(r, childPath(childPath(path, 'targetRefs'), i), issues));
}
