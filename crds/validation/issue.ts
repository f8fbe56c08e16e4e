/** Where a problem was found: the structural schema (the API server enforces it too) or a semantic check. */
export type IssueLayer = 'schema' | 'semantic';

/** One validation error or warning. */
export interface ValidationIssue {
  /** Field path such as `spec.http[0].route[1].weight` (`metadata.name`, `kind`, ...). */
  readonly path: string;
  readonly message: string;
  readonly layer: IssueLayer;
}

/** Appends an object key to a field path: `a.b`, or `a["x.y/z"]` when the key is not identifier-like. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/**
 * Longest value a message quotes whole (`shown` for schema errors, `clipQuoted` for semantic ones): a DNS name (up to
 * 253 characters) is shown whole, a torn or pasted file's kilobytes in one field are not.
 */
const QUOTED_MAX = 300;
/** Every double-quoted value, left to right (so that the quotes pair up as written). */
const QUOTED = /"((?:[^"\\]|\\.)*)"/g;

/**
 * `text` with every double-quoted value longer than QUOTED_MAX cut to its first 60 characters and its length: a message
 * (and the log line and /debug/rejectedz entry that carry it) should not repeat kilobytes of one field.
 */
export function clipQuoted(text: string): string {
  return text.replace(QUOTED, (whole, inner: string) => (inner.length <= QUOTED_MAX ? whole : `"${inner.slice(0, 60)}..." (${inner.length} characters)`));
}

/** A value as an error message quotes it: its JSON, cut to its first 60 characters past QUOTED_MAX (schema errors), with how long it was. */
export function shown(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  if (json.length <= QUOTED_MAX) return json;
  const what = typeof value === 'string' ? `a string of ${value.length} characters` : `${json.length} characters of JSON`;
  return `${json.slice(0, 60)}... (${what})`;
}

/** Collects errors and warnings of one semantic pass; long quoted values in paths and messages are cut (clipQuoted). */
export class IssueCollector {
  readonly errors: ValidationIssue[] = [];
  readonly warnings: ValidationIssue[] = [];

  /** Records an error at `path`. */
  error(path: string, message: string): void {
    this.errors.push({ path: clipQuoted(path), message: clipQuoted(message), layer: 'semantic' });
  }

  /** Records a warning at `path` (the object is still accepted). */
  warn(path: string, message: string): void {
    this.warnings.push({ path: clipQuoted(path), message: clipQuoted(message), layer: 'semantic' });
  }
}
