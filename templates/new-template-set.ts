import type { MissingKey } from './exec.js';
import type { GoFunction } from './go-value.js';
import { helmFunctions } from './helm-functions.js';
import { sprigFunctions } from './sprig.js';
import { TemplateSet } from './template-set.js';

/** Options of {@link newTemplateSet}. */
export interface NewTemplateSetOptions {
  /** Register Sprig's functions (default true). */
  sprig?: boolean;
  /** Register Helm's `include`, `tpl`, `required`, `toYaml`, `fromYaml` (default false). */
  helm?: boolean;
  /** The host's own functions, registered last (they win over Sprig's and Helm's). */
  funcs?: Record<string, GoFunction>;
  /** Go's `missingkey` option (default `default`). */
  missingKey?: MissingKey;
}

/** A template set with the built-ins, Sprig (as `sprig.TxtFuncMap()`), optionally Helm's functions, and the host's. */
export function newTemplateSet(options: NewTemplateSetOptions = {}): TemplateSet {
  const set = new TemplateSet({ missingKey: options.missingKey ?? 'default' });
  if (options.sprig ?? true) set.addFuncs(sprigFunctions());
  if (options.helm) set.addFuncs(helmFunctions(set));
  if (options.funcs) set.addFuncs(options.funcs);
  return set;
}
