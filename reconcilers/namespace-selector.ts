import type { MeshConfig } from '../core/index.js';

/** A Kubernetes label selector (`metav1.LabelSelector`): every term must hold. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/** One `matchExpressions` term. */
export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  readonly values?: readonly string[];
}

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

/** A mesh config `discoverySelectors` entry that is not a valid label selector. */
export class DiscoverySelectorError extends Error {
  override readonly name = 'DiscoverySelectorError';
}

/** Whether `labels` satisfy `selector` (an empty selector matches everything). */
export function matchesLabelSelector(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  const have = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (have[key] !== value) return false;
  }
  for (const term of selector.matchExpressions ?? []) {
    const present = Object.hasOwn(have, term.key);
    const values = term.values ?? [];
    switch (term.operator) {
      case 'In':
        if (!present || !values.includes(have[term.key]!)) return false;
        break;
      case 'NotIn':
        if (present && values.includes(have[term.key]!)) return false;
        break;
      case 'Exists':
        if (!present) return false;
        break;
      case 'DoesNotExist':
        if (present) return false;
        break;
    }
  }
  return true;
}

/**
 * Whether mesh config `discoverySelectors` select a namespace with `labels`: no selectors select every
 * namespace; otherwise any one matching selector does (Istio's rule).
 */
export function selectsNamespace(selectors: readonly LabelSelector[], labels: Readonly<Record<string, string>> | undefined): boolean {
  return selectors.length === 0 || selectors.some((s) => matchesLabelSelector(s, labels));
}

/**
 * The `discoverySelectors` of a mesh config (kept in `extra`, as the model does not interpret them),
 * validated: each entry must be a label selector with string labels and known operators.
 * @throws DiscoverySelectorError naming the entry and field that is wrong
 */
export function discoverySelectorsOf(meshConfig: Pick<MeshConfig, 'extra'>): LabelSelector[] {
  const raw = meshConfig.extra['discoverySelectors'];
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new DiscoverySelectorError('mesh config discoverySelectors: must be a list of label selectors');
  return raw.map((entry: unknown, i) => parseSelector(entry, `mesh config discoverySelectors[${i}]`));
}

function parseSelector(entry: unknown, where: string): LabelSelector {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new DiscoverySelectorError(`${where}: must be a label selector object`);
  const { matchLabels, matchExpressions, ...rest } = entry as Record<string, unknown>;
  const unknownFields = Object.keys(rest);
  if (unknownFields.length > 0) throw new DiscoverySelectorError(`${where}: unknown field ${unknownFields[0]} (use matchLabels or matchExpressions)`);
  const selector: { matchLabels?: Record<string, string>; matchExpressions?: LabelSelectorRequirement[] } = {};
  if (matchLabels !== undefined && matchLabels !== null) {
    if (typeof matchLabels !== 'object' || Array.isArray(matchLabels)) throw new DiscoverySelectorError(`${where}.matchLabels: must be a map of strings`);
    for (const [key, value] of Object.entries(matchLabels)) {
      if (typeof value !== 'string') throw new DiscoverySelectorError(`${where}.matchLabels.${key}: must be a string`);
    }
    selector.matchLabels = matchLabels as Record<string, string>;
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) throw new DiscoverySelectorError(`${where}.matchExpressions: must be a list`);
    selector.matchExpressions = matchExpressions.map((term: unknown, j) => parseRequirement(term, `${where}.matchExpressions[${j}]`));
  }
  return selector;
}

function parseRequirement(term: unknown, where: string): LabelSelectorRequirement {
  const t = (typeof term === 'object' && term !== null ? term : {}) as { key?: unknown; operator?: unknown; values?: unknown };
  if (typeof t.key !== 'string' || t.key === '') throw new DiscoverySelectorError(`${where}.key: must be a non-empty string`);
  if (!OPERATORS.includes(t.operator as (typeof OPERATORS)[number])) {
    throw new DiscoverySelectorError(`${where}.operator: ${JSON.stringify(t.operator)} is not one of ${OPERATORS.join(', ')}`);
  }
  const operator = t.operator as LabelSelectorRequirement['operator'];
  const values = t.values ?? [];
  if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) throw new DiscoverySelectorError(`${where}.values: must be a list of strings`);
  if ((operator === 'In' || operator === 'NotIn') && values.length === 0) throw new DiscoverySelectorError(`${where}.values: ${operator} needs at least one value`);
  if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) throw new DiscoverySelectorError(`${where}.values: ${operator} takes no values`);
  return { key: t.key, operator, values: values as string[] };
}
