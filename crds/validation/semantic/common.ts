import { childPath, type IssueCollector } from '../issue.js';
import { checkExportTo, checkWildcardHost } from '../values.js';

/** Reports `problem` at `path` when it is defined. */
export function report(issues: IssueCollector, path: string, problem: string | undefined): void {
  if (problem !== undefined) issues.error(path, problem);
}

/** Checks every host of a list (non-empty list unless `optional`). */
export function checkHosts(
  hosts: readonly string[] | undefined,
  path: string,
  issues: IssueCollector,
  options: { optional?: boolean; allowStar?: boolean } = {},
): void {
  if (hosts === undefined || hosts.length === 0) {
    if (options.optional !== true) issues.error(path, 'at least one host is required');
    return;
  }
  hosts.forEach((host, i) => report(issues, childPath(path, i), checkWildcardHost(host, options.allowStar ?? true)));
}

/** Checks an `exportTo` list when present. */
export function checkExportToField(values: readonly string[] | undefined, path: string, issues: IssueCollector): void {
  if (values !== undefined) report(issues, path, checkExportTo(values));
}

/**
 * Checks a `selector`/`targetRef`/`targetRefs` triple: only one of them may be set, and a
 * selector's label keys must not be empty or contain wildcards.
 */
export function checkPolicyAttachment(
  spec: { selector?: { matchLabels?: Record<string, string> }; targetRef?: unknown; targetRefs?: readonly unknown[] },
  path: string,
  issues: IssueCollector,
): void {
  const set = [spec.selector !== undefined, spec.targetRef !== undefined, spec.targetRefs !== undefined].filter(Boolean);
  if (set.length > 1) issues.error(path, 'only one of selector, targetRef or targetRefs may be set');
  for (const [key, value] of Object.entries(spec.selector?.matchLabels ?? {})) {
    const at = childPath(childPath(childPath(path, 'selector'), 'matchLabels'), key);
    if (key === '' || key.includes('*')) issues.error(at, 'label key must be non-empty and must not contain "*"');
    if (value.includes('*')) issues.error(at, 'wildcard "*" is not allowed in a label value');
  }
}
