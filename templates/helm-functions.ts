/** Helm's template functions (`include`, `tpl`, `required`, `toYaml`, `fromYaml`), bound to a template set. */
import { GoFunction, type GoMap, type GoValue } from './go-value.js';
import { marshalYAML, unmarshalYAML } from './go-yaml.js';
import { quoteString } from './go-fmt.js';
import type { TemplateSet } from './template-set.js';

/**
 * Helm's functions for `set`: `include` executes a template of the set; `tpl` parses and executes a
 * string against a copy of the set (replacing `<no value>` with nothing, as Helm does); `required`
 * fails with its message when the value is nil or ""; `toYaml` is sigs.k8s.io/yaml.Marshal without its
 * trailing newline; `fromYaml` decodes a map (numbers as float64; an error goes under key `Error`).
 */
export function helmFunctions(set: TemplateSet): Record<string, GoFunction> {
  return {
    include: new GoFunction(['string', 'interface {}'], (name, data) => set.execute(name as string, data), undefined, true),
    tpl: new GoFunction(['string', 'interface {}'], (text, vals) => {
      const c = set.clone();
      const name = set.executing ?? 'tpl';
      try {
        c.parse(name, text as string);
      } catch (e) {
        throw new Error(`cannot parse template ${quoteString(text as string)}: ${(e as Error).message}`);
      }
      c.addFuncs(helmFunctions(c));
      try {
        return c.execute(name, vals).replaceAll('<no value>', '');
      } catch (e) {
        throw new Error(`error during tpl function execution for ${quoteString(text as string)}: ${(e as Error).message}`);
      }
    }, undefined, true),
    required: new GoFunction(['string', 'interface {}'], (warn, val) => {
      if (val === null || val === undefined || val === '') throw new Error(warn as string);
      return val;
    }, undefined, true),
    toYaml: new GoFunction(['interface {}'], (v) => {
      try {
        return marshalYAML(v).replace(/\n$/, '');
      } catch {
        return '';
      }
    }),
    fromYaml: new GoFunction(['string'], (s) => {
      try {
        const v = unmarshalYAML(s as string);
        if (v === null || v === undefined) return {};
        if (typeof v !== 'object' || Array.isArray(v)) return { Error: 'error unmarshaling JSON: json: cannot unmarshal into Go value of type map[string]interface {}' } as GoMap;
        return v as GoValue;
      } catch (e) {
        return { Error: (e as Error).message };
      }
    }),
  };
}
