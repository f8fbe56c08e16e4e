/** Sprig v3's function map (the subset used by Istio's injection templates and Helm charts). */
import type { GoFunction } from './go-value.js';
import { sprigCollectionFunctions } from './sprig-collections.js';
import { sprigMiscFunctions } from './sprig-misc.js';
import { sprigStringFunctions } from './sprig-strings.js';

/**
 * Sprig's functions, as `sprig.TxtFuncMap()` provides them: strings, lists, dicts, defaults, math,
 * types, JSON encoding and `semverCompare`. Names Sprig has but this library lacks are absent, so a
 * template using one fails at parse time with Go's `function "x" not defined`.
 */
export function sprigFunctions(): Record<string, GoFunction> {
  return { ...sprigStringFunctions(), ...sprigCollectionFunctions(), ...sprigMiscFunctions() };
}
