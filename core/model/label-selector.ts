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
