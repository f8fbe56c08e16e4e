/**
 * Orchestrator label selectors (`matchLabels` + `matchExpressions`), as used by the mesh config's
 * `discoverySelectors`: a namespace is watched when any selector matches its labels, or when there are
 * no selectors at all.
 */

import { labelSelectorMatches, type LabelSelector } from '../../core/index.js';

export type { LabelSelector, LabelSelectorRequirement } from '../../core/index.js';

/** A selector that cannot be used; the message names the item and what is wrong. */
export class LabelSelectorError extends Error {
  override readonly name = 'LabelSelectorError';
}

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

/**
 * Checks raw selectors (e.g. from the mesh config file).
 * @param where names the setting in errors, e.g. `meshConfig discoverySelectors`
 * @throws LabelSelectorError naming the item
 */
export function parseLabelSelectors(raw: unknown, where: string): LabelSelector[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new LabelSelectorError(`${where}: must be a list of label selectors`);
  return raw.map((item: unknown, i) => {
    const at = `${where}[${i}]`;
    if (typeof item !== 'object' || item === null) throw new LabelSelectorError(`${at}: must be an object`);
    const { matchLabels, matchExpressions } = item as { matchLabels?: unknown; matchExpressions?: unknown };
    if (matchLabels !== undefined && (typeof matchLabels !== 'object' || matchLabels === null || Object.values(matchLabels).some((v) => typeof v !== 'string'))) {
      throw new LabelSelectorError(`${at}.matchLabels: must map label names to strings`);
    }
    const exprs = matchExpressions === undefined ? [] : matchExpressions;
    if (!Array.isArray(exprs)) throw new LabelSelectorError(`${at}.matchExpressions: must be a list`);
    exprs.forEach((e: unknown, j) => {
      const ex = (e ?? {}) as { key?: unknown; operator?: unknown; values?: unknown };
      if (typeof ex.key !== 'string' || ex.key === '') throw new LabelSelectorError(`${at}.matchExpressions[${j}].key: required`);
      if (!(OPERATORS as readonly unknown[]).includes(ex.operator)) {
        throw new LabelSelectorError(`${at}.matchExpressions[${j}].operator: ${JSON.stringify(ex.operator)} is not one of ${OPERATORS.join(', ')}`);
      }
      if ((ex.operator === 'In' || ex.operator === 'NotIn') && (!Array.isArray(ex.values) || ex.values.length === 0)) {
        throw new LabelSelectorError(`${at}.matchExpressions[${j}].values: ${ex.operator} needs at least one value`);
      }
    });
    return item as LabelSelector;
  });
}

/** Whether one selector matches `labels` (core's matcher). */
export const selectorMatches = labelSelectorMatches;

/** Whether a namespace with `labels` is selected: no selectors, or any selector matches. */
export function namespaceSelected(selectors: readonly LabelSelector[], labels: Readonly<Record<string, string>>): boolean {
  return selectors.length === 0 || selectors.some((s) => selectorMatches(s, labels));
}
