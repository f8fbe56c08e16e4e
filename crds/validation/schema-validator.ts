import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { freeForm, int, map, obj, str, type SchemaNode } from '../schema/builders.js';
import type { KindDefinition } from '../schema/kind-definition.js';
import { childPath, shown, type ValidationIssue } from './issue.js';

/** The metadata fields a mesh config object may carry (others are kept, not checked). */
export const objectMetaSchema = {
  ...obj(
    {
      name: str(),
      namespace: str(),
      labels: map(str()),
      annotations: map(str()),
      resourceVersion: str(),
      generation: int(),
      creationTimestamp: str(),
      uid: str(),
    },
    ['name'],
  ),
  'x-kubernetes-preserve-unknown-fields': true,
} as const;

/**
 * The whole-object schema ajv checks: apiVersion, kind, metadata, spec (required) and status.
 * NOTE: status is written by controllers, not users, and may carry fields a newer writer added; it is not
 * checked here (the API server's CRD schema still types it).
 */
export function objectSchema(definition: KindDefinition): SchemaNode {
  return obj(
    { apiVersion: str(), kind: str(), metadata: objectMetaSchema, spec: definition.spec, status: freeForm() },
    ['apiVersion', 'kind', 'metadata', 'spec'],
  );
}

type JsonObject = Record<string, unknown>;

/**
 * Converts a schema for ajv: objects with known properties are closed (`additionalProperties: false`)
 * unless they preserve unknown fields, so a misspelt field is an error (as with the API server's
 * strict field validation); Kubernetes extension keys are dropped (`x-mesh-check` stays so error messages can name the check).
 */
export function toAjvSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toAjvSchema);
  if (typeof node !== 'object' || node === null) return node;
  const source = node as JsonObject;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (key.startsWith('x-kubernetes-')) continue;
    if (key === 'properties') {
      out[key] = Object.fromEntries(Object.entries(value as JsonObject).map(([k, v]) => [k, toAjvSchema(v)]));
    } else {
      out[key] = toAjvSchema(value);
    }
  }
  if ('properties' in source && source['x-kubernetes-preserve-unknown-fields'] !== true) {
    out['additionalProperties'] = false;
  }
  return out;
}

// NOTE: ajv (and ajv-formats, both CommonJS) load only when a kind has no precompiled validator: compiling
// VirtualService's schema alone takes longer than `meshctl validate` may take to start.
const requireCjs = createRequire(import.meta.url);

/** The ajv options every validator of mesh.io objects is compiled with (at run time or by the build). */
export const AJV_OPTIONS = { allErrors: true, verbose: true, strict: false } as const;

/** A new ajv with the formats the schemas use; `source` keeps the generated code (for the build's precompile). */
export function newAjv(o: { source?: boolean } = {}): AjvModule.Ajv {
  const { Ajv } = requireCjs('ajv') as typeof AjvModule;
  const { default: addFormats } = requireCjs('ajv-formats') as { default: (ajv: AjvModule.Ajv, formats: string[]) => unknown };
  const ajv = new Ajv({ ...AJV_OPTIONS, ...(o.source ? { code: { source: true } } : {}) });
  addFormats(ajv, ['date-time']);
  for (const format of ['int32', 'int64', 'uint32', 'uint64', 'double', 'float', 'binary']) ajv.addFormat(format, true);
  return ajv;
}

/**
 * The hash that names a kind's precompiled validator: of everything the ajv schema is made from (the options,
 * the object schema and the code that converts it for ajv), without converting it, which costs more than
 * loading the validator.
 */
export function schemaHashOf(definition: KindDefinition): string {
  const inputs = [AJV_OPTIONS, objectSchema(definition), toAjvSchema.toString()];
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex').slice(0, 16);
}

/** Where the build writes precompiled validators (`<Kind>-<hash>.cjs`, ajv standalone code). */
export const COMPILED_VALIDATORS_DIR = new URL('./compiled/', import.meta.url);

/** The file of a kind's precompiled validator for the schema with `hash`. */
export function compiledValidatorUrl(kind: string, hash: string): URL {
  return new URL(`${kind}-${hash}.cjs`, COMPILED_VALIDATORS_DIR);
}

/** The kind's precompiled validator when the build wrote one for its current schema, else undefined. */
export function loadCompiledValidator(kind: string, hash: string): ValidateFunction | undefined {
  try {
    const mod = requireCjs(compiledValidatorUrl(kind, hash).pathname) as { default?: ValidateFunction };
    return typeof mod.default === 'function' ? mod.default : undefined;
  } catch (e) {
    // NOTE: a missing file (schema changed since the build, or `tsc` alone) means compile here; anything else is a bug.
    if ((e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw e;
  }
}

/**
 * Validators for whole objects of a kind; one per kind, cached: the build's precompiled validator for the
 * kind's current schema when there is one (`precompiled: false` skips them), else compiled here by ajv.
 */
export class SchemaValidator {
  readonly #precompiled: boolean;
  #ajv: AjvModule.Ajv | undefined;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(o: { precompiled?: boolean } = {}) {
    this.#precompiled = o.precompiled ?? true;
  }

  /** Validates `value` against the object schema of `definition`; returns schema-layer issues. */
  validate(definition: KindDefinition, value: unknown): ValidationIssue[] {
    let validate = this.#compiled.get(definition.kind);
    if (validate === undefined) {
      const precompiled = this.#precompiled ? loadCompiledValidator(definition.kind, schemaHashOf(definition)) : undefined;
      validate = precompiled ?? (this.#ajv ??= newAjv()).compile(toAjvSchema(objectSchema(definition)) as object);
      this.#compiled.set(definition.kind, validate);
    }
    if (validate(value)) return [];
    return toIssues(validate.errors ?? [], value);
  }
}

/**
 * Turns an ajv JSON pointer (`/spec/http/0/route`) into a field path (`spec.http[0].route`). With the validated
 * `root`, a numeric segment is an index only under an array: a map key "9" stays `ports["9"]`, the path the
 * semantic checks use (fuzz finding: the two paths differed, so a semantic check repeated a schema refusal).
 */
export function pointerToPath(pointer: string, root?: unknown): string {
  if (pointer === '') return '';
  let path = '';
  let at: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const index = root === undefined ? /^[0-9]+$/.test(segment) : Array.isArray(at);
    path = childPath(path, index ? Number(segment) : segment);
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[segment] : undefined;
  }
  return path;
}

function describe(error: ErrorObject, root: unknown): { path: string; message: string } {
  const path = pointerToPath(error.instancePath, root);
  const parent = (error.parentSchema ?? {}) as JsonObject;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: childPath(path, String(params['missingProperty'])), message: 'required field is missing' };
    case 'additionalProperties':
      return { path: childPath(path, String(params['additionalProperty'])), message: 'unknown field' };
    case 'enum':
      return {
        path,
        message: `${shown(error.data)} is not one of ${(params['allowedValues'] as unknown[]).join(', ')}`,
      };
    case 'type':
      // NOTE: YAML (as kubectl and istiod read it) makes an unquoted yes/no/on/off/y/n a boolean: say so.
      if (typeof error.data === 'boolean' && String(params['type']) === 'string') {
        return { path, message: `must be of type string, got ${String(error.data)} (unquoted yes/no/on/off/y/n/true/false are booleans in YAML: quote the value)` };
      }
      return { path, message: `must be of type ${String(params['type'])}, got ${shown(error.data)}` };
    case 'anyOf':
      return { path, message: `must be an integer or a string, got ${shown(error.data)}` };
    case 'minimum':
    case 'maximum':
      // NOTE: Istio's CEL message on every port field (the schema's 1..65535 bounds).
      if (parent['minimum'] === 1 && parent['maximum'] === 65535) return { path, message: `port must be between 1-65535 (got ${shown(error.data)})` };
      return { path, message: `${error.message ?? error.keyword} (got ${shown(error.data)})` };
    case 'maxProperties':
      if (parent['maxProperties'] === 1 && typeof parent['properties'] === 'object') {
        const names = Object.keys(parent['properties'] as JsonObject).join(', ');
        return { path, message: `at most one of ${names} may be set` };
      }
      return { path, message: error.message ?? 'too many fields' };
    case 'pattern':
      if (parent['x-mesh-check'] === 'duration') {
        return { path, message: `invalid duration ${shown(error.data)}: use forms such as 1s, 0.5s, 100ms or 1h30m` };
      }
      return { path, message: `${shown(error.data)} does not match ${String(params['pattern'])}` };
    default:
      return { path, message: `${error.message ?? error.keyword} (got ${shown(error.data)})` };
  }
}

function toIssues(errors: readonly ErrorObject[], root: unknown): ValidationIssue[] {
  // NOTE: with allErrors, an int-or-string mismatch also reports each anyOf branch; keep the anyOf error.
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.schemaPath));
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const branchOf = error.schemaPath.replace(/\/[0-9]+\/[^/]+$/, '');
    if (error.keyword !== 'anyOf' && anyOfPaths.has(branchOf)) continue;
    const { path, message } = describe(error, root);
    const key = `${path}\n${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path, message, layer: 'schema' });
  }
  return issues;
}
