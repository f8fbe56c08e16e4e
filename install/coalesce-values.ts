/**
 * Helm's value precedence: `-f` files and `--set` merged left to right (later wins, maps merge), then
 * coalesced over the chart's values.yaml (user values win; a user `null` deletes the chart's key; a table
 * is never replaced by a scalar nor a scalar by a table, as chartutil.CoalesceValues does).
 */
import type { GoMap, GoValue } from '../templates/index.js';

const isTable = (v: GoValue): v is GoMap => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

function deepCopy<T extends GoValue>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => deepCopy(x)) as T;
  if (isTable(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepCopy(x)])) as T;
  return v;
}

/** Helm's `mergeMaps` of value files and `--set`s: `b` over `a`, recursively for maps. */
export function mergeValues(a: GoMap, b: GoMap): GoMap {
  const out: GoMap = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    out[k] = isTable(v) && isTable(cur) ? mergeValues(cur, v) : v;
  }
  return out;
}

function coalesceTables(dst: GoMap, src: GoMap, warn: (msg: string) => void, prefix: string): void {
  for (const [key, val] of Object.entries(src)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (!Object.hasOwn(dst, key)) dst[key] = deepCopy(val);
    else if (dst[key] === null) delete dst[key];
    else if (isTable(val)) {
      const dv = dst[key];
      if (isTable(dv)) coalesceTables(dv, val, warn, full);
      else warn(`warning: cannot overwrite table with non table for ${full} (${JSON.stringify(val)})`);
    } else if (isTable(dst[key]) && val !== null) warn(`warning: destination for ${full} is a table. Ignoring non-table value (${JSON.stringify(val)})`);
  }
}

/**
 * The values a chart's templates see: `overrides` (already merged user values) coalesced over `defaults`.
 * Neither input is changed.
 */
export function coalesceValues(defaults: GoMap, overrides: GoMap, warn: (msg: string) => void = () => {}): GoMap {
  const out = deepCopy(overrides);
  coalesceTables(out, defaults, warn, '');
  return out;
}
