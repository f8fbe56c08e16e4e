/**
 * `--set` on a MeshOperator, as `istioctl --set` does with Helm's `strvals` syntax: `key=value` pairs
 * separated by commas (`\,` escapes one), dotted keys (`a.b`, `a\.b` for a dot inside a key), list indexes
 * (`a[0].b`), and typed scalars (true/false, null, integers without a leading zero; the rest strings).
 */
import type { GoMap } from '../../templates/index.js';
import { MeshOperatorError } from './mesh-operator-error.js';

const isMap = (v: unknown): v is GoMap => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One segment of a `--set` path: a map key or a list index. */
export type SetPathPart = string | number;

/** A parsed `--set` pair. */
export interface SetOverride {
  readonly path: readonly SetPathPart[];
  readonly value: unknown;
  /** The `--set` argument it came from, for error messages. */
  readonly arg: string;
}

function splitPairs(arg: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < arg.length; i++) {
    const c = arg[i] as string;
    if (c === '\\' && i + 1 < arg.length) {
      cur += c + (arg[i + 1] as string);
      i++;
    } else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

function parseKey(key: string, arg: string): SetPathPart[] {
  const parts: SetPathPart[] = [];
  let cur = '';
  let i = 0;
  const fail = (why: string): never => {
    throw new MeshOperatorError(`--set ${JSON.stringify(arg)}: ${why}`);
  };
  const push = (): void => {
    if (cur === '') fail(`empty key segment in "${key}"`);
    parts.push(cur);
    cur = '';
  };
  while (i < key.length) {
    const c = key[i] as string;
    if (c === '\\' && i + 1 < key.length) {
      cur += key[i + 1];
      i += 2;
    } else if (c === '.') {
      if (cur !== '') push();
      else if (parts.length === 0 || typeof parts[parts.length - 1] !== 'number') fail(`empty key segment in "${key}"`);
      i++;
    } else if (c === '[') {
      if (cur !== '') push();
      const end = key.indexOf(']', i);
      const idx = end < 0 ? '' : key.slice(i + 1, end);
      if (!/^\d+$/.test(idx)) fail(`list index in "${key}" must be a non-negative integer in [ ]`);
      parts.push(Number(idx));
      i = end + 1;
      if (i < key.length && key[i] !== '.' && key[i] !== '[') fail(`expected "." or "[" after "]" in "${key}"`);
    } else if (c === '{' || c === '}' || c === ']') {
      fail(`unsupported character "${c}" in key "${key}"`);
    } else {
      cur += c;
      i++;
    }
  }
  if (cur !== '') parts.push(cur);
  else if (parts.length === 0 || typeof parts[parts.length - 1] !== 'number') fail(`empty key segment in "${key}"`);
  return parts;
}

function typedValue(raw: string, arg: string): unknown {
  if (raw.startsWith('{')) throw new MeshOperatorError(`--set ${JSON.stringify(arg)}: list values ({a,b}) are not supported; use key[0]=a,key[1]=b`);
  const v = raw.replace(/\\(.)/g, '$1');
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (v === 'null') return null;
  if (/^-?(0|[1-9]\d*)$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
  return v;
}

/** Parses `--set` arguments into their pairs, in order. */
export function parseSets(sets: readonly string[]): SetOverride[] {
  const out: SetOverride[] = [];
  for (const arg of sets) {
    for (const pair of splitPairs(arg)) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new MeshOperatorError(`--set ${JSON.stringify(arg)}: expected key=value, got ${JSON.stringify(pair)}`);
      out.push({ path: parseKey(pair.slice(0, eq), arg), value: typedValue(pair.slice(eq + 1), arg), arg });
    }
  }
  return out;
}

function setPath(root: GoMap, { path, value, arg }: SetOverride): void {
  let node: unknown = root;
  for (let i = 0; i < path.length; i++) {
    const part = path[i] as SetPathPart;
    const last = i === path.length - 1;
    const nextIsIndex = typeof path[i + 1] === 'number';
    if (typeof part === 'number') {
      if (!Array.isArray(node)) throw new MeshOperatorError(`--set ${JSON.stringify(arg)}: "${path.slice(0, i).join('.')}" is not a list`);
      while (node.length <= part) node.push(null);
      if (last) node[part] = value;
      else if (nextIsIndex ? !Array.isArray(node[part]) : !isMap(node[part])) node[part] = nextIsIndex ? [] : {};
      node = node[part];
    } else {
      if (!isMap(node)) throw new MeshOperatorError(`--set ${JSON.stringify(arg)}: "${path.slice(0, i).join('.')}" is not a map`);
      if (last) node[part] = value as GoMap[string];
      else if (nextIsIndex ? !Array.isArray(node[part]) : !isMap(node[part])) node[part] = nextIsIndex ? [] : {};
      node = node[part];
    }
  }
}

/**
 * Applies `--set` arguments to a MeshOperator spec in place (and returns it). Keys are spec paths
 * (`profile`, `values.global.hub`, `components.ingressGateways[0].enabled`), as `istioctl --set`.
 * @throws MeshOperatorError naming the argument on a malformed pair or a path through a non-map/non-list
 */
export function applySets(spec: GoMap, sets: readonly string[]): GoMap {
  for (const o of parseSets(sets)) setPath(spec, o);
  return spec;
}
