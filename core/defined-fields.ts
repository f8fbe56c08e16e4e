/**
 * Passing optional options along under `exactOptionalPropertyTypes`: an option left unset must stay absent
 * (not become `undefined`), which otherwise takes a conditional spread per field.
 */

/** The fields of `o` named in `keys` whose value is not undefined; the others are absent. */
export function definedFields<T extends object, K extends keyof T>(o: T, keys: readonly K[]): { [P in K]?: Exclude<T[P], undefined> } {
  const out: Partial<Record<K, unknown>> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out as { [P in K]?: Exclude<T[P], undefined> };
}
