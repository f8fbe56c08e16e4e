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

/** Collects errors and warnings of one semantic pass. */
export class IssueCollector {
  readonly errors: ValidationIssue[] = [];
  readonly warnings: ValidationIssue[] = [];

  /** Records an error at `path`. */
  error(path: string, message: string): void {
    this.errors.push({ path, message, layer: 'semantic' });
  }

  /** Records a warning at `path` (the object is still accepted). */
  warn(path: string, message: string): void {
    this.warnings.push({ path, message, layer: 'semantic' });
  }
}
