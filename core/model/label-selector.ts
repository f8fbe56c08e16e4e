/**
 * Kubernetes label selectors (`matchLabels` + `matchExpressions`) and the one matcher every folder uses:
 * the orchestrator registry's `discoverySelectors`, the injector's never/always selectors and the webhook
 * configurations' namespace and object selectors.
 */

/** One `matchExpressions` item. */
export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  readonly values?: readonly string[];
}

/** A label selector. An empty selector matches everything (callers that want otherwise check first). */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/** Whether `selector` matches `labels`, as the Kubernetes API server decides it. An unknown operator matches nothing. */
export function labelSelectorMatches(
  selector: { readonly matchLabels?: Readonly<Record<string, string>>; readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[] },
  labels: Readonly<Record<string, string>>,
): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    switch (e.operator) {
      case 'In':
        if (!has || !(e.values ?? []).includes(value!)) return false;
        break;
      case 'NotIn':
        if (has && (e.values ?? []).includes(value!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** A selector that cannot be used; the message names the item and what is wrong. */
export class LabelSelectorError extends Error {
  override readonly name = 'LabelSelectorError';
}

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

/**
 * Checks raw selectors (from a mesh config file, the injector's ConfigMap, ...): a list of objects with
 * `matchLabels` (label name -> string) and `matchExpressions` (key, one of the four operators, string
 * values; In and NotIn need at least one, as the API server requires). An absent list is no selectors.
 * @param where names the setting in errors, e.g. `meshConfig discoverySelectors`
 * @throws LabelSelectorError naming the item and field
 */
export function parseLabelSelectors(raw: unknown, where: string): LabelSelector[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new LabelSelectorError(`${where}: must be a list of label selectors`);
  return raw.map((item: unknown, i) => {
    const at = `${where}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new LabelSelectorError(`${at}: must be a label selector (matchLabels, matchExpressions)`);
    const { matchLabels, matchExpressions } = item as { matchLabels?: unknown; matchExpressions?: unknown };
    const labels: Record<string, string> = {};
    if (matchLabels !== undefined && matchLabels !== null) {
      if (typeof matchLabels !== 'object' || Array.isArray(matchLabels)) throw new LabelSelectorError(`${at}.matchLabels: must map label names to strings`);
      for (const [k, v] of Object.entries(matchLabels)) {
        if (typeof v !== 'string') throw new LabelSelectorError(`${at}.matchLabels.${k}: must be a string`);
        labels[k] = v;
      }
    }
    const exprs = matchExpressions ?? [];
    if (!Array.isArray(exprs)) throw new LabelSelectorError(`${at}.matchExpressions: must be a list`);
    const requirements = exprs.map((e: unknown, j): LabelSelectorRequirement => {
      const ex = (typeof e === 'object' && e !== null ? e : {}) as { key?: unknown; operator?: unknown; values?: unknown };
      const here = `${at}.matchExpressions[${j}]`;
      if (typeof ex.key !== 'string' || ex.key === '') throw new LabelSelectorError(`${here}.key: required`);
      const operator = OPERATORS.find((o) => o === ex.operator);
      if (!operator) throw new LabelSelectorError(`${here}.operator: ${JSON.stringify(ex.operator)} is not one of ${OPERATORS.join(', ')}`);
      const values = ex.values ?? [];
      if (!Array.isArray(values) || values.some((x) => typeof x !== 'string')) throw new LabelSelectorError(`${here}.values: must be a list of strings`);
      if ((operator === 'In' || operator === 'NotIn') && values.length === 0) throw new LabelSelectorError(`${here}.values: ${operator} needs at least one value`);
      return { key: ex.key, operator, ...(values.length > 0 ? { values: values as string[] } : {}) };
    });
    return {
      ...(matchLabels !== undefined && matchLabels !== null ? { matchLabels: labels } : {}),
      ...(matchExpressions !== undefined && matchExpressions !== null ? { matchExpressions: requirements } : {}),
    };
  });
}
