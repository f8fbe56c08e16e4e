/** Label selector helpers shared by the analyzers. */
import { labelsMatch } from '../core/index.js';

/** True when every `key: value` of `selector` is among `labels` (an empty selector selects everything): core's matcher. */
export const selects = labelsMatch;

/** `matchLabels` of a `workloadSelector`/`selector` object, or of a plain label map; undefined when absent. */
export function matchLabelsOf(v: unknown): Record<string, string> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const inner = o['matchLabels'] ?? o['labels'];
  const src = inner !== undefined ? inner : o;
  if (typeof src !== 'object' || src === null || Array.isArray(src)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(src)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** `k1=v1,k2=v2`, keys sorted: how Istio prints a selector in messages. */
export function selectorString(sel: Readonly<Record<string, string>>): string {
  return Object.keys(sel)
    .sort()
    .map((k) => `${k}=${sel[k]}`)
    .join(',');
}
