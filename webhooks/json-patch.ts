/**
 * RFC 6902 JSON Patch between two JSON documents (what a mutating webhook answers), and applying one.
 * NOTE: no JSON-patch package is in node_modules; this is the minimal diff the injector needs: objects key by
 * key, arrays element by element (added at the end, removed from the end backwards).
 */
import { isDeepStrictEqual } from 'node:util';

/** One JSON Patch operation. */
export type JsonPatchOperation =
  | { readonly op: 'add'; readonly path: string; readonly value: unknown }
  | { readonly op: 'replace'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

const escape = (k: string): string => k.replaceAll('~', '~0').replaceAll('/', '~1');
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The operations that turn `before` into `after`. */
export function createPatch(before: unknown, after: unknown, path = ''): JsonPatchOperation[] {
  if (isDeepStrictEqual(before, after)) return [];
  if (isObj(before) && isObj(after)) {
    const ops: JsonPatchOperation[] = [];
    for (const k of Object.keys(before)) if (!Object.hasOwn(after, k)) ops.push({ op: 'remove', path: `${path}/${escape(k)}` });
    for (const [k, v] of Object.entries(after)) {
      ops.push(...(Object.hasOwn(before, k) ? createPatch(before[k], v, `${path}/${escape(k)}`) : [{ op: 'add' as const, path: `${path}/${escape(k)}`, value: v }]));
    }
    return ops;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const ops: JsonPatchOperation[] = [];
    const common = Math.min(before.length, after.length);
    for (let i = 0; i < common; i++) ops.push(...createPatch(before[i], after[i], `${path}/${i}`));
    for (let i = common; i < after.length; i++) ops.push({ op: 'add', path: `${path}/${i}`, value: after[i] });
    for (let i = before.length - 1; i >= common; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    return ops;
  }
  return [{ op: 'replace', path: path, value: after }];
}

/** Thrown for a patch that does not apply (a path that does not exist). */
export class JsonPatchError extends Error {
  override readonly name = 'JsonPatchError';
}

/** Applies `ops` to a copy of `doc` (add, replace, remove). @throws JsonPatchError */
export function applyPatch(doc: unknown, ops: readonly JsonPatchOperation[]): unknown {
  let root = structuredClone(doc);
  for (const op of ops) {
    if (op.path === '') {
      if (op.op === 'remove') throw new JsonPatchError('cannot remove the whole document');
      root = structuredClone(op.value);
      continue;
    }
    const keys = op.path.slice(1).split('/').map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = keys.pop()!;
    let parent: unknown = root;
    for (const k of keys) {
      parent = Array.isArray(parent) ? parent[Number(k)] : isObj(parent) ? parent[k] : undefined;
      if (parent === undefined) throw new JsonPatchError(`${op.op} ${op.path}: no such path`);
    }
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (!Number.isInteger(i) || i < 0 || i > parent.length || (op.op !== 'add' && i >= parent.length)) throw new JsonPatchError(`${op.op} ${op.path}: index out of range`);
      if (op.op === 'add') parent.splice(i, 0, structuredClone(op.value));
      else if (op.op === 'replace') parent[i] = structuredClone(op.value);
      else parent.splice(i, 1);
    } else if (isObj(parent)) {
      if (op.op !== 'add' && !Object.hasOwn(parent, last)) throw new JsonPatchError(`${op.op} ${op.path}: no such path`);
      if (op.op === 'remove') delete parent[last];
      else parent[last] = structuredClone(op.value);
    } else throw new JsonPatchError(`${op.op} ${op.path}: parent is not a container`);
  }
  return root;
}
