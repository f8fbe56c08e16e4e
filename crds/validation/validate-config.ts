import type { AnyMeshConfig, SpecOf } from '../types.js';
import type { KindName } from '../kinds.js';
import { IssueCollector, type ValidationIssue } from './issue.js';
import { kindOf, UnknownKindError } from './kind-of.js';
import { runSchemaChecks } from './schema-checks.js';
import { SchemaValidator } from './schema-validator.js';
import { SEMANTIC_VALIDATORS } from './semantic-validators.js';
import { checkDns1123Label, checkDns1123Subdomain } from './values.js';

/** The outcome of {@link validateConfig}: the typed object, or every error found. Warnings either way. */
export type ValidationResult =
  | { readonly ok: true; readonly config: AnyMeshConfig; readonly warnings: readonly ValidationIssue[] }
  | { readonly ok: false; readonly errors: readonly ValidationIssue[]; readonly warnings: readonly ValidationIssue[] };

const schemaValidator = new SchemaValidator();

/** The most errors (and warnings) one result lists; the rest are summed up in one last issue. */
export const MAX_ISSUES = 50;

/** NOTE: a hostile object can hold 100,000 unknown fields: every caller would log, count and send them all. */
/**
 * The issue with line breaks in its message escaped: messages quote the values they refuse, and a value
 * may hold line breaks (found by fuzzing), which would split a log line or a one-line refusal in two.
 */
function oneLine(i: ValidationIssue): ValidationIssue {
  return /[\r\n\u2028\u2029]/.test(i.message) ? { ...i, message: i.message.replace(/\r/g, '\\r').replace(/\n/g, '\\n').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029') } : i;
}

function capped(all: ValidationIssue[]): ValidationIssue[] {
  const issues = all.map(oneLine);
  if (issues.length <= MAX_ISSUES) return issues;
  const rest = issues.length - MAX_ISSUES;
  return [...issues.slice(0, MAX_ISSUES), { path: '', message: `and ${rest} more`, layer: issues[MAX_ISSUES]!.layer }];
}

function fail(errors: ValidationIssue[], warnings: ValidationIssue[] = []): ValidationResult {
  return { ok: false, errors: capped(errors), warnings: capped(warnings) };
}

function schemaError(path: string, message: string): ValidationIssue {
  return { path, message, layer: 'schema' };
}

function metadataIssues(metadata: unknown): ValidationIssue[] {
  if (typeof metadata !== 'object' || metadata === null) return [];
  const { name, namespace } = metadata as { name?: unknown; namespace?: unknown };
  const issues: ValidationIssue[] = [];
  if (typeof name === 'string') {
    const bad = checkDns1123Subdomain(name);
    if (bad !== undefined) issues.push(schemaError('metadata.name', `name ${bad}`));
  }
  if (typeof namespace === 'string') {
    const bad = checkDns1123Label(namespace);
    if (bad !== undefined) issues.push(schemaError('metadata.namespace', `namespace ${bad}`));
  }
  return issues;
}

/**
 * Validates one mesh.io object (a parsed YAML/JSON document): apiVersion and kind must name a served
 * mesh.io kind; metadata name is a DNS-1123 subdomain and namespace a DNS-1123 label; the object must
 * match the kind's structural schema (unknown fields are errors); then the kind's semantic checks run
 * (as Istio's validation does). Lists at most {@link MAX_ISSUES} errors and warnings (then `and N more`).
 * Never throws for bad input.
 */
export function validateConfig(obj: unknown): ValidationResult {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    return fail([schemaError('', 'a config object must be a mapping with apiVersion, kind, metadata and spec')]);
  }
  const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
    const errors: ValidationIssue[] = [];
    if (typeof apiVersion !== 'string') errors.push(schemaError('apiVersion', 'apiVersion is required and must be a string'));
    if (typeof kind !== 'string') errors.push(schemaError('kind', 'kind is required and must be a string'));
    return fail(errors);
  }
  let resolved;
  try {
    resolved = kindOf(apiVersion, kind);
  } catch (error) {
    if (error instanceof UnknownKindError) return fail([schemaError(error.field, error.message)]);
    throw error;
  }
  const errors = [...schemaValidator.validate(resolved.definition, obj), ...metadataIssues((obj as { metadata?: unknown }).metadata)];

  const config = obj as AnyMeshConfig;
  const issues = new IssueCollector();
  if (errors.length > 0) {
    // NOTE: schema errors do not hide semantic ones: a user fixes every error of a document in one pass.
    // The semantic checks expect schema-shaped input, so on a document that is not, one that throws
    // adds nothing (its schema errors already say why).
    try {
      runSchemaChecks(resolved.definition.spec, config.spec, 'spec', issues);
      runSemantic(resolved.name, config.spec, issues, namespaceOf(config));
    } catch {
      return fail(errors);
    }
    const seen = new Set(errors.map((e) => `${e.path}\n${e.message}`));
    // NOTE: nor do they repeat one: a semantic issue at or under a field the schema refused is dropped.
    // Found by fuzzing (crds/testing/config-fuzz-surface.ts): a check that met a list where the schema
    // wants a string or object said `subset name "[object Object]"` or `port undefined must be in 1..65535`.
    const refused = errors.map((e) => e.path);
    const underRefused = (i: ValidationIssue): boolean => refused.some((p) => i.path === p || i.path.startsWith(`${p}.`) || i.path.startsWith(`${p}[`));
    const kept = (i: ValidationIssue): boolean => !underRefused(i);
    return fail([...errors, ...issues.errors.filter((e) => !seen.has(`${e.path}\n${e.message}`) && kept(e))], issues.warnings.filter(kept));
  }
  runSchemaChecks(resolved.definition.spec, config.spec, 'spec', issues);
  runSemantic(resolved.name, config.spec, issues, namespaceOf(config));
  if (issues.errors.length > 0) return fail(issues.errors, issues.warnings);
  return { ok: true, config, warnings: capped([...issues.warnings]) };
}

function runSemantic<K extends KindName>(kind: K, spec: unknown, issues: IssueCollector, namespace: string | undefined): void {
  const validator = SEMANTIC_VALIDATORS[kind];
  validator(spec as SpecOf<K>, issues, 'spec', namespace);
}

/** The object's namespace when it names one (a file may leave it to the reader's default). */
function namespaceOf(config: AnyMeshConfig): string | undefined {
  const ns = (config.metadata as { namespace?: unknown } | undefined)?.namespace;
  return typeof ns === 'string' && ns !== '' ? ns : undefined;
}
