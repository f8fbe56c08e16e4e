/**
 * Mutations of a JSON value for fuzzing: a valid base object (from a corpus) with a few of its fields
 * replaced, deleted or swapped for hostile values, so that the fuzzer reaches the checks deep inside a
 * validator rather than only the first "not an object" one.
 */
import fc from 'fast-check';

/** One mutation: at the `at`-th path of the value (modulo their count), `op` with `value`. */
export interface JsonMutation {
  readonly at: number;
  readonly op: 'replace' | 'delete' | 'wrap-list' | 'stringify';
  readonly value: unknown;
}

/** Values that break careless code: wrong types, huge numbers, empty and odd strings, prototype keys. */
export const hostileJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 31, -(2 ** 53), 1e308, '', ' ', '*', '.', '-', '0', 'a'.repeat(300), '\u0000', '${x}', '{{ .x }}', '[]', '{}'),
  fc.constantFrom({}, [], [null], [[]], { __proto__: null }, JSON.parse('{"__proto__": {"x": 1}}') as unknown, { constructor: 'x' }, { toString: 1 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** A mutation arbitrary with values from `values` (default {@link hostileJsonValue}). */
export function jsonMutation(values: fc.Arbitrary<unknown> = hostileJsonValue): fc.Arbitrary<JsonMutation> {
  return fc.record({ at: fc.nat(), op: fc.constantFrom('replace', 'replace', 'delete', 'wrap-list', 'stringify'), value: values });
}

type Path = readonly (string | number)[];

function paths(v: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...prefix, i], out));
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) paths(x, [...prefix, k], out);
  return out;
}

function clone(v: unknown): unknown {
  return v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as unknown);
}

/** `base` (not modified) with `mutations` applied in order; a mutation of the root replaces the whole value. */
export function applyMutations(base: unknown, mutations: readonly JsonMutation[]): unknown {
  let root = clone(base);
  for (const m of mutations) {
    const all = paths(root);
    const path = all[m.at % all.length]!;
    const get = (p: Path): unknown => p.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], root);
    const current = get(path);
    const next = m.op === 'wrap-list' ? [current] : m.op === 'stringify' ? JSON.stringify(current) ?? '' : clone(m.value);
    if (path.length === 0) {
      root = m.op === 'delete' ? {} : next;
      continue;
    }
    const parent = get(path.slice(0, -1)) as Record<string | number, unknown> | unknown[];
    const key = path[path.length - 1]!;
    if (m.op === 'delete') {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
    } else if (Array.isArray(parent)) parent[key as number] = next;
    else Object.defineProperty(parent, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return root;
}

/** A base from `bases` with 0-4 mutations applied. */
export function mutatedJson(bases: readonly unknown[], values?: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(fc.constantFrom(...bases), fc.array(jsonMutation(values), { maxLength: 4 })).map(([b, ms]) => applyMutations(b, ms));
}
