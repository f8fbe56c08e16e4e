/**
 * Orchestrator label selectors (`matchLabels` + `matchExpressions`), as used by the mesh config's
 * `discoverySelectors`: a namespace is watched when any selector matches its labels, or when there are
 * no selectors at all.
 */

import { labelSelectorMatches, type LabelSelector } from '../../core/index.js';

export type { LabelSelector, LabelSelectorRequirement } from '../../core/index.js';
// NOTE: the parser lives in core (one for discoverySelectors, the injector's selectors and the rest).
export { LabelSelectorError, parseLabelSelectors } from '../../core/index.js';

/** Whether one selector matches `labels` (core's matcher). */
export const selectorMatches = labelSelectorMatches;

/** Whether a namespace with `labels` is selected: no selectors, or any selector matches. */
export function namespaceSelected(selectors: readonly LabelSelector[], labels: Readonly<Record<string, string>>): boolean {
  return selectors.length === 0 || selectors.some((s) => selectorMatches(s, labels));
}
