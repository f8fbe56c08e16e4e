import { obj, str } from '../../schema/builders.js';

/**
 * Istio's StringMatch: exactly one of `exact`, `prefix`, `regex` (RE2 syntax).
 * NOTE: `maxProperties: 1` makes "at most one" a schema rule the API server enforces too.
 */
export const stringMatch = obj(
  {
    exact: str(),
    prefix: str(),
    regex: str({ 'x-mesh-check': 'regex' }),
  },
  [],
  { maxProperties: 1, description: 'Exactly one of exact, prefix or regex (RE2).' },
);
