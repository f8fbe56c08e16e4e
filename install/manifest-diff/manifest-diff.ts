/**
 * `manifest diff` as istioctl does it: two manifests are compared object by object, keyed
 * `Kind:Namespace:Name`; `select` keeps only the objects matching a list, `ignore` drops those matching
 * another, `rename` maps keys of the first manifest before comparing (`A->B` pairs). Each list item is
 * `Kind:Namespace:Name` with `*` wildcards; an empty part matches anything (`::` is everything).
 */
import { parseAllDocuments, stringify } from 'yaml';
import { lineDiff as diffText } from './line-diff.js';

/** A Kubernetes object read from a manifest. */
interface ManifestObject {
  readonly key: string;
  readonly object: Record<string, unknown>;
}

/** Options of {@link diffManifests}. */
export interface ManifestDiffOptions {
  /** Comma-separated `Kind:Namespace:Name` patterns to keep (default `::`, everything). */
  readonly select?: string;
  /** Comma-separated patterns to leave out. */
  readonly ignore?: string;
  /** Comma-separated `A->B` renames applied to the first manifest's keys. */
  readonly rename?: string;
}

/** A bad manifest or option, with the input named. */
export class ManifestDiffError extends Error {
  override readonly name = 'ManifestDiffError';
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Reads the objects of a multi-document manifest (empty documents and `List`s' items handled).
 * @throws ManifestDiffError naming `origin` and the document on a YAML error or an object without kind/name
 */
export function parseManifestObjects(text: string, origin: string): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const docs = parseAllDocuments(text);
  const add = (o: unknown, where: string): void => {
    if (o === null || o === undefined) return;
    if (!isMap(o)) throw new ManifestDiffError(`${origin}: ${where} is not an object`);
    if (typeof o['kind'] === 'string' && o['kind'].endsWith('List') && Array.isArray(o['items'])) {
      o['items'].forEach((item, i) => add(item, `${where} items[${i}]`));
      return;
    }
    const meta = isMap(o['metadata']) ? o['metadata'] : {};
    if (typeof o['kind'] !== 'string' || typeof meta['name'] !== 'string') throw new ManifestDiffError(`${origin}: ${where} has no kind or metadata.name`);
    const key = `${o['kind']}:${typeof meta['namespace'] === 'string' ? meta['namespace'] : ''}:${meta['name']}`;
    out.set(key, o);
  };
  docs.forEach((d, i) => {
    if (d.errors.length > 0) throw new ManifestDiffError(`${origin}: document ${i + 1}: ${d.errors[0]?.message ?? 'YAML error'}`);
    add(d.toJS(), `document ${i + 1}`);
  });
  return out;
}

function globToRegExp(part: string): RegExp {
  if (part === '' || part === '*') return /^.*$/;
  return new RegExp(`^${part.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

function parsePatterns(list: string, flag: string): ((key: string) => boolean)[] {
  return list.split(',').map((s) => s.trim()).filter((s) => s !== '').map((item) => {
    const parts = item.split(':');
    if (parts.length !== 3) throw new ManifestDiffError(`--${flag} ${JSON.stringify(item)}: expected Kind:Namespace:Name (parts may be empty or use *)`);
    const res = parts.map(globToRegExp);
    return (key: string): boolean => {
      const k = key.split(':');
      return res.every((re, i) => re.test(k[i] ?? ''));
    };
  });
}

function parseRenames(list: string): { from: (key: string) => boolean; to: string[] }[] {
  return list.split(',').map((s) => s.trim()).filter((s) => s !== '').map((pair) => {
    const [a, b, ...rest] = pair.split('->');
    if (a === undefined || b === undefined || rest.length > 0) throw new ManifestDiffError(`--rename ${JSON.stringify(pair)}: expected A->B`);
    const to = b.trim().split(':');
    if (to.length !== 3) throw new ManifestDiffError(`--rename ${JSON.stringify(pair)}: expected Kind:Namespace:Name on both sides`);
    const from = parsePatterns(a, 'rename')[0] ?? ((): boolean => false);
    return { from, to };
  });
}

/** Object YAML with keys sorted, so that key order never shows as a difference. */
function canonicalYaml(o: unknown): string {
  return stringify(o, { sortMapEntries: true, lineWidth: 0 });
}

function filtered(objs: Map<string, Record<string, unknown>>, o: ManifestDiffOptions): ManifestObject[] {
  const select = parsePatterns(o.select ?? '::', 'select');
  const ignore = parsePatterns(o.ignore ?? '', 'ignore');
  return [...objs].filter(([k]) => (select.length === 0 || select.some((m) => m(k))) && !ignore.some((m) => m(k))).map(([key, object]) => ({ key, object }));
}

/**
 * The object-level diff of two manifests: for each object of `a` that differs in `b`, `Object K has
 * diffs:` and a line diff of their YAML; objects of one side alone are printed in full under `Object K
 * is missing in B:` / `... in A:`. Returns '' when the selected objects are identical.
 */
export function diffManifests(a: string, b: string, options: ManifestDiffOptions = {}, origins: [string, string] = ['A', 'B']): string {
  const renames = parseRenames(options.rename ?? '');
  const renamed = new Map<string, Record<string, unknown>>();
  for (const [k, v] of parseManifestObjects(a, origins[0])) {
    const r = renames.find((x) => x.from(k));
    renamed.set(r ? k.split(':').map((p, i) => (r.to[i] === '*' || r.to[i] === '' ? p : (r.to[i] as string))).join(':') : k, v);
  }
  const aObjs = filtered(renamed, options);
  const bObjs = filtered(parseManifestObjects(b, origins[1]), options);
  const bByKey = new Map(bObjs.map((x) => [x.key, x.object]));
  const aKeys = new Set(aObjs.map((x) => x.key));
  let out = '';
  for (const { key, object } of [...aObjs].sort((x, y) => x.key.localeCompare(y.key))) {
    const other = bByKey.get(key);
    if (other === undefined) {
      out += `\n\nObject ${key} is missing in B:\n\n${canonicalYaml(object)}`;
      continue;
    }
    const d = diffText(canonicalYaml(object), canonicalYaml(other));
    if (d !== '') out += `\n\nObject ${key} has diffs:\n\n${d}`;
  }
  for (const { key, object } of [...bObjs].sort((x, y) => x.key.localeCompare(y.key))) {
    if (!aKeys.has(key)) out += `\n\nObject ${key} is missing in A:\n\n${canonicalYaml(object)}`;
  }
  return out;
}
